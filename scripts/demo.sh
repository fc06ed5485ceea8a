#!/usr/bin/env bash
# README command (1): on a fresh machine, install everything, start Elasticsearch, Redis, a Celery worker
# and the API, ingest the demo corpus (Python 3.11 docs from Debian's python3.11-doc) through Celery, and
# answer sample queries in all three modes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
sp=.venv/bin/search-platform
$sp up --app
# an index left by an earlier version (older mapping, or another embedding model's vectors) is rebuilt first
$sp reindex --alias "${SP_ELASTICSEARCH__INDEX_ALIAS:-sp-chunks}" --if-needed
.venv/bin/python -c 'from pathlib import Path; from search_platform.evaluation.demo_corpus import build_demo_corpus; print(len(build_demo_corpus(Path("var/demo-corpus"))), "pages in var/demo-corpus")'
# an API key for the demo (search + ingest, bound to the `default` tenant); printed once, kept only in this shell
SP_API_KEY=$($sp keys create --name demo --scopes search,ingest --tenant default)
export SP_API_KEY
$sp ingest var/demo-corpus
for query in "json.JSONDecodeError" "how do I run another program and read what it prints" "shutil.copytree dirs_exist_ok"; do
  for mode in bm25 semantic hybrid; do
    $sp query "$query" --mode "$mode" --top-k 5
  done
done
sleep 3  # the API writes its search logs in the background, every flush_interval_s (2 s)
echo "Search logs of the queries above, summarised per experiment arm (no experiment is configured: '(none)'):"
$sp report --since 1h
echo "The platform is up: API on http://127.0.0.1:8000 (docs at /docs). Stop it with: $sp down"
echo "Requests need an API key: create one with '$sp keys create --name me --scopes search --tenant default'."
