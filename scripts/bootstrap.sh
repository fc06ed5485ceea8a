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

# The Elasticsearch analysis plugin (plugins/analysis), which infra/ installs before the node starts. Lucene 10
# needs a JDK 21+ (Debian's 17 cannot read its classes); skipped while the zip is newer than every source file.
plugin=plugins/analysis
zip=$(ls -t "$plugin"/target/*.zip 2>/dev/null | head -n 1 || true)
if [ -z "$zip" ] || [ -n "$(find "$plugin/pom.xml" "$plugin/src" -newer "$zip" -print -quit)" ]; then
  java_home=${SP_INFRA__JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
  [ -x "$java_home/bin/java" ] || { echo "bootstrap: no JDK at $java_home (set SP_INFRA__JAVA_HOME)" >&2; exit 1; }
  echo "bootstrap: building $plugin with Maven"
  JAVA_HOME="$java_home" mvn -B -q -Dstyle.color=never -f "$plugin/pom.xml" package
fi

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

# The default embedding backend is ONNX: write the model's fp32 and int8 graphs now (cached by content hash, a
# no-op when present) so neither the first worker batch nor the first query waits for the export.
.venv/bin/python -m search_platform.embeddings.onnx_export >/dev/null
