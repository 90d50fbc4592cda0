#!/usr/bin/env bash
# Builds the DocQA test Elasticsearch runner and caches it with all its jars in
# ~/.cache/docqa/es/<version>/ (lib/*.jar, VERSION). Idempotent: does nothing when the
# cache already matches the sources. Needs Maven Central the first time only.
# Usage: install.sh            (prints the cache dir on success)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

if es_cache_ready; then
  echo "$ES_CACHE"
  exit 0
fi

command -v mvn >/dev/null || { echo "install.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
command -v java >/dev/null || { echo "install.sh: java not found (need Java 17+)" >&2; exit 1; }

mkdir -p "$ES_CACHE_ROOT"
# Serialise concurrent installs (e.g. parallel test workers on a cold machine).
exec 9>"$ES_CACHE_ROOT/.lock"
flock 9
if es_cache_ready; then
  echo "$ES_CACHE"
  exit 0
fi

stamp="$(es_source_stamp)"
tmp="$(mktemp -d "$ES_CACHE_ROOT/.build-$ES_VERSION.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "install.sh: building Elasticsearch $ES_VERSION runner into $ES_CACHE" >&2
if ! mvn -q -B -Dstyle.color=never -f "$ES_INFRA_DIR/pom.xml" \
  -Des.version="$ES_VERSION" \
  -Ddocqa.buildDir="$tmp/target" \
  -DincludeScope=runtime -DoutputDirectory="$tmp/lib" \
  package dependency:copy-dependencies > "$tmp/mvn.log" 2>&1; then
  sed 's/\x1b\[[0-9;]*m//g' "$tmp/mvn.log" >&2
  echo "install.sh: maven build failed (see above)" >&2
  exit 1
fi
rm -f "$tmp/mvn.log"
cp "$tmp/target/docqa-es-runner.jar" "$tmp/lib/"
rm -rf "$tmp/target"
echo "$ES_VERSION" > "$tmp/VERSION"
echo "$stamp" > "$tmp/.stamp"
rm -rf "$ES_CACHE"
mv "$tmp" "$ES_CACHE"
trap - EXIT
echo "$ES_CACHE"
