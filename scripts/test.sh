#!/usr/bin/env bash
# README command (2): install what is needed, start Elasticsearch and Redis, lint, type-check and run the
# whole test suite (unit + integration against the real services; the tests start their own worker and API).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
.venv/bin/search-platform up
.venv/bin/ruff check .
.venv/bin/mypy search_platform workers infra clients/python/src benchmarks loadtests  # benchmarks too: a script that no longer type-checks no longer runs
.venv/bin/lint-imports --no-cache  # the import arrows of docs/architecture.md (contracts in .importlinter)
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet  # the docs site (var/site); the settings table is generated
.venv/bin/pytest -p no:cacheprovider "$@"
