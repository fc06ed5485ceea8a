#!/usr/bin/env bash
# Install what the platform needs on a fresh machine (idempotent): Debian packages, the Python
# environment in .venv (uv), and a .env holding a generated Elasticsearch password if none exists.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v unzip >/dev/null || missing+=(unzip)
command -v mvn >/dev/null || missing+=(maven)
[ -d /usr/share/doc/python3.11/html ] || missing+=(python3.11-doc)
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v uv >/dev/null || python3 -m pip install -q uv
[ -x .venv/bin/python ] || uv venv -q -p 3.11 .venv
VIRTUAL_ENV="$PWD/.venv" uv pip install -q -e '.[dev,eval,load]'

if [ ! -f .env ] || ! grep -q '^SP_ELASTICSEARCH__PASSWORD=' .env; then
  stored=/var/lib/search-platform/secrets/elastic-password
  if [ -r "$stored" ]; then password=$(cat "$stored"); origin="the password the local Elasticsearch was provisioned with"; else password=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(24))'); origin="a generated password"; fi
  umask 077
  echo "SP_ELASTICSEARCH__PASSWORD=$password" >> .env
  echo "bootstrap: wrote $origin to .env"
fi
if ! grep -q '^SP_ELASTICSEARCH__SERVICE_PASSWORD=' .env; then
  # the least-privilege user the API, workers and CLI use (infra provisions it in the file realm on start)
  stored=/var/lib/search-platform/secrets/service-password
  if [ -r "$stored" ]; then password=$(cat "$stored"); origin="the service-user password the local Elasticsearch has"; else password=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(24))'); origin="a generated Elasticsearch service-user password"; fi
  umask 077
  echo "SP_ELASTICSEARCH__SERVICE_PASSWORD=$password" >> .env
  echo "bootstrap: wrote $origin to .env"
fi
if ! grep -q '^SP_KIBANA_SYSTEM_PASSWORD=' .env; then
  umask 077
  echo "SP_KIBANA_SYSTEM_PASSWORD=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(24))')" >> .env
fi
