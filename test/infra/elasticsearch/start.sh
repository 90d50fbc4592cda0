#!/usr/bin/env bash
# Starts a real single-node Elasticsearch (8.x server jar from Maven Central) in the
# foreground. SIGTERM/SIGINT shuts it down cleanly.
#
# Usage: start.sh <httpPort> <dataDir> [-Ekey=value ...]
#   HTTP on 127.0.0.1:<httpPort>, no security (plain HTTP, no auth), cluster "docqa-test".
#   <dataDir>/data holds the indices (reusing the same dir keeps them across restarts);
#   <dataDir>/ES_VERSION is written with the version (before exec, and again once started).
# Env:
#   ES_JAVA_OPTS   extra JVM flags (appended, so -Xmx etc. override the defaults)
#   ES_LOG_LEVEL   root log level (default WARN; INFO to see the usual ES startup log)
#   DOCQA_ES_VERSION / DOCQA_ES_CACHE  see env.sh
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 <httpPort> <dataDir> [-Ekey=value ...]" >&2
  exit 2
fi
port="$1"
data="$2"
shift 2
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

"$ES_INFRA_DIR/install.sh" >/dev/null

mkdir -p "$data/tmp"
data="$(cd "$data" && pwd)"
echo "$ES_VERSION" > "$data/ES_VERSION"

java_bin="java"
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  java_bin="$JAVA_HOME/bin/java"
fi

# JVM flags: heap for tests, plus the system properties the official launcher sets.
# shellcheck disable=SC2086
exec "$java_bin" \
  -Xms512m -Xmx1g \
  -XX:+UseG1GC \
  -Djava.io.tmpdir="$data/tmp" \
  -Dfile.encoding=UTF-8 \
  -Djava.awt.headless=true \
  -Djava.locale.providers=SPI,COMPAT \
  -Des.set.netty.runtime.available.processors=false \
  -Dio.netty.noUnsafe=true \
  -Dio.netty.noKeySetOptimization=true \
  -Dio.netty.recycler.maxCapacityPerThread=0 \
  -Dlog4j.shutdownHookEnabled=false \
  -Dlog4j2.disable.jmx=true \
  -Dlog4j2.formatMsgNoLookups=true \
  ${ES_JAVA_OPTS:-} \
  -cp "$ES_CACHE/lib/*" \
  docqa.EsRunner "$port" "$data" "$@"
