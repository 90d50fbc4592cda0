# Sourced by install.sh and start.sh: where the Elasticsearch build lives.
#   DOCQA_ES_VERSION  override the version pinned in ./ES_VERSION (must be an 8.x on Maven Central
#                     for both org.elasticsearch:elasticsearch and org.elasticsearch.plugin:transport-netty4)
#   DOCQA_ES_CACHE    override the cache root (default ~/.cache/docqa/es)
ES_INFRA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ES_VERSION="${DOCQA_ES_VERSION:-$(tr -d '[:space:]' < "$ES_INFRA_DIR/ES_VERSION")}"
ES_CACHE_ROOT="${DOCQA_ES_CACHE:-$HOME/.cache/docqa/es}"
ES_CACHE="$ES_CACHE_ROOT/$ES_VERSION"

# Fingerprint of everything that goes into the cached build; a change triggers a rebuild.
es_source_stamp() {
  (
    cd "$ES_INFRA_DIR"
    echo "$ES_VERSION"
    cat pom.xml
    find src -type f | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done
  ) | sha256sum | cut -d' ' -f1
}

es_cache_ready() {
  [[ -f "$ES_CACHE/.stamp" && "$(cat "$ES_CACHE/.stamp")" == "$(es_source_stamp)" && -f "$ES_CACHE/lib/docqa-es-runner.jar" ]]
}
