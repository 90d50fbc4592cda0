package docqa;

import org.elasticsearch.ExceptionsHelper;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.DocWriteResponse;
import org.elasticsearch.action.admin.indices.refresh.RefreshRequest;
import org.elasticsearch.action.bulk.BulkItemResponse;
import org.elasticsearch.action.bulk.BulkRequest;
import org.elasticsearch.action.bulk.BulkResponse;
import org.elasticsearch.action.delete.DeleteRequest;
import org.elasticsearch.action.search.ClearScrollRequest;
import org.elasticsearch.action.search.SearchRequest;
import org.elasticsearch.action.search.SearchResponse;
import org.elasticsearch.action.search.SearchScrollRequest;
import org.elasticsearch.action.support.IndicesOptions;
import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.cluster.metadata.IndexNameExpressionResolver;
import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.document.DocumentField;
import org.elasticsearch.common.io.stream.NamedWriteableRegistry;
import org.elasticsearch.common.settings.ClusterSettings;
import org.elasticsearch.common.settings.IndexScopedSettings;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.settings.SettingsFilter;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.index.query.AbstractQueryBuilder;
import org.elasticsearch.index.query.QueryBuilder;
import org.elasticsearch.index.query.QueryBuilders;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestChannel;
import org.elasticsearch.rest.RestController;
import org.elasticsearch.rest.RestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.RestResponse;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.search.SearchHit;
import org.elasticsearch.search.builder.SearchSourceBuilder;
import org.elasticsearch.search.sort.SortOrder;
import org.elasticsearch.xcontent.ToXContent;
import org.elasticsearch.xcontent.XContentBuilder;
import org.elasticsearch.xcontent.XContentParser;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * DocQA test stand-in for the delete-by-query part of Elasticsearch's {@code reindex}
 * module (the module is not published to Maven Central for 8.x).
 *
 * {@code POST /{index}/_delete_by_query} is implemented inside the real node with the
 * same building blocks the module uses: a scroll search over a snapshot of the index
 * (fetching _seq_no/_primary_term), then bulk deletes guarded by if_seq_no /
 * if_primary_term, so concurrent updates surface as version conflicts
 * ({@code conflicts=abort|proceed}). The response body has the module's shape
 * (took, timed_out, total, deleted, batches, version_conflicts, noops, retries,
 * throttled_millis, requests_per_second, throttled_until_millis, failures).
 *
 * Not implemented: slices>1 parallelism (accepted, runs as one slice), throttling,
 * wait_for_completion=false tasks (runs synchronously), _update_by_query, _reindex.
 */
public class DocqaDeleteByQueryPlugin extends Plugin implements ActionPlugin {

    @Override
    public List<RestHandler> getRestHandlers(
        Settings settings,
        NamedWriteableRegistry namedWriteableRegistry,
        RestController restController,
        ClusterSettings clusterSettings,
        IndexScopedSettings indexScopedSettings,
        SettingsFilter settingsFilter,
        IndexNameExpressionResolver indexNameExpressionResolver,
        Supplier<DiscoveryNodes> nodesInCluster,
        Predicate<NodeFeature> clusterSupportsFeature
    ) {
        return List.of(new DeleteByQueryHandler());
    }

    static final class DeleteByQueryHandler extends BaseRestHandler {

        @Override
        public String getName() {
            return "delete_by_query_action";
        }

        @Override
        public List<Route> routes() {
            return List.of(new Route(RestRequest.Method.POST, "/{index}/_delete_by_query"));
        }

        @Override
        protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
            final String[] indices = Strings.splitStringByCommaToArray(request.param("index"));
            final boolean refresh = request.paramAsBoolean("refresh", false);
            final String conflicts = request.param("conflicts", "abort");
            if (conflicts.equals("abort") == false && conflicts.equals("proceed") == false) {
                throw new IllegalArgumentException("conflicts may only be \"proceed\" or \"abort\" but was [" + conflicts + "]");
            }
            int maxDocs = request.paramAsInt("max_docs", -1);
            final int scrollSize = request.paramAsInt("scroll_size", 1000);
            final String routing = request.param("routing");
            final TimeValue scrollKeepAlive = request.paramAsTime("scroll", TimeValue.timeValueMinutes(5));
            final IndicesOptions indicesOptions = IndicesOptions.fromRequest(request, IndicesOptions.strictExpandOpen());
            final String q = request.param("q");
            final String df = request.param("df");
            final String defaultOperator = request.param("default_operator");
            final String analyzer = request.param("analyzer");
            final String preference = request.param("preference");
            // Accepted for API compatibility with the real module; see class javadoc.
            for (String p : new String[] {
                "slices", "wait_for_completion", "timeout", "wait_for_active_shards", "requests_per_second",
                "search_timeout", "lenient", "analyze_wildcard", "request_cache", "stats", "terminate_after",
                "search_type", "from", "version" }) {
                request.param(p);
            }

            QueryBuilder query = null;
            if (request.hasContentOrSourceParam()) {
                try (XContentParser parser = request.contentOrSourceParamParser()) {
                    XContentParser.Token token = parser.nextToken();
                    if (token != XContentParser.Token.START_OBJECT) {
                        throw new IllegalArgumentException("request body must be an object");
                    }
                    String field = null;
                    while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
                        if (token == XContentParser.Token.FIELD_NAME) {
                            field = parser.currentName();
                        } else if ("query".equals(field)) {
                            query = AbstractQueryBuilder.parseTopLevelQuery(parser);
                        } else if ("max_docs".equals(field) || "size".equals(field)) {
                            maxDocs = parser.intValue();
                        } else if ("conflicts".equals(field)) {
                            // body-level conflicts is not part of the DBQ API; ignore like a param would be rejected
                            throw new IllegalArgumentException("[conflicts] must be given as a URL parameter");
                        } else {
                            throw new IllegalArgumentException("unsupported field [" + field + "] in _delete_by_query body");
                        }
                    }
                }
            }
            if (q != null) {
                var qs = QueryBuilders.queryStringQuery(q);
                if (df != null) qs.defaultField(df);
                if (analyzer != null) qs.analyzer(analyzer);
                if (defaultOperator != null) qs.defaultOperator(org.elasticsearch.index.query.Operator.fromString(defaultOperator));
                query = query == null ? qs : QueryBuilders.boolQuery().must(query).must(qs);
            }
            if (query == null) {
                throw new IllegalArgumentException("query is missing");
            }
            final Job job = new Job(
                client, indices, query, refresh, "proceed".equals(conflicts), maxDocs, scrollSize, routing,
                scrollKeepAlive, indicesOptions, preference
            );
            return job::start;
        }
    }

    private static final class Job {
        final NodeClient client;
        final String[] indices;
        final QueryBuilder query;
        final boolean refresh;
        final boolean proceedOnConflicts;
        final int maxDocs;
        final int scrollSize;
        final String routing;
        final TimeValue keepAlive;
        final IndicesOptions indicesOptions;
        final String preference;

        RestChannel channel;
        final long startNanos = System.nanoTime();
        String scrollId;
        long total;
        long deleted;
        long batches;
        long versionConflicts;
        final List<BulkItemResponse.Failure> failures = new ArrayList<>();

        Job(NodeClient client, String[] indices, QueryBuilder query, boolean refresh, boolean proceedOnConflicts, int maxDocs,
            int scrollSize, String routing, TimeValue keepAlive, IndicesOptions indicesOptions, String preference) {
            this.client = client;
            this.indices = indices;
            this.query = query;
            this.refresh = refresh;
            this.proceedOnConflicts = proceedOnConflicts;
            this.maxDocs = maxDocs;
            this.scrollSize = scrollSize;
            this.routing = routing;
            this.keepAlive = keepAlive;
            this.indicesOptions = indicesOptions;
            this.preference = preference;
        }

        void start(RestChannel ch) {
            this.channel = ch;
            int size = maxDocs > 0 ? Math.min(scrollSize, maxDocs) : scrollSize;
            SearchSourceBuilder source = new SearchSourceBuilder().query(query)
                .size(size)
                .fetchSource(false)
                .seqNoAndPrimaryTerm(true)
                .sort("_doc", SortOrder.ASC);
            SearchRequest sr = new SearchRequest(indices).source(source).scroll(keepAlive).indicesOptions(indicesOptions);
            if (routing != null) sr.routing(routing);
            if (preference != null) sr.preference(preference);
            client.search(sr, ActionListener.wrap(this::onPage, this::fail));
        }

        void onPage(SearchResponse resp) {
            scrollId = resp.getScrollId();
            SearchHit[] hits = resp.getHits().getHits();
            long remaining = maxDocs > 0 ? maxDocs - total : Long.MAX_VALUE;
            if (hits.length == 0 || remaining <= 0) {
                finish();
                return;
            }
            BulkRequest bulk = new BulkRequest();
            int n = (int) Math.min(hits.length, remaining);
            for (int i = 0; i < n; i++) {
                SearchHit h = hits[i];
                DeleteRequest del = new DeleteRequest(h.getIndex(), h.getId()).setIfSeqNo(h.getSeqNo()).setIfPrimaryTerm(h.getPrimaryTerm());
                DocumentField r = h.field("_routing");
                if (r != null && r.getValue() != null) del.routing(r.getValue().toString());
                bulk.add(del);
            }
            batches++;
            client.bulk(bulk, ActionListener.wrap(this::onBulk, this::fail));
        }

        void onBulk(BulkResponse br) {
            boolean abort = false;
            for (BulkItemResponse item : br.getItems()) {
                if (item.isFailed()) {
                    Exception cause = item.getFailure().getCause();
                    if (ExceptionsHelper.unwrapCause(cause) instanceof VersionConflictEngineException) {
                        versionConflicts++;
                        if (proceedOnConflicts == false) {
                            failures.add(item.getFailure());
                            abort = true;
                        }
                    } else {
                        failures.add(item.getFailure());
                        abort = true;
                    }
                } else {
                    total++;
                    if (item.getResponse().getResult() == DocWriteResponse.Result.DELETED) {
                        deleted++;
                    }
                }
            }
            if (abort || (maxDocs > 0 && total >= maxDocs)) {
                finish();
                return;
            }
            client.searchScroll(new SearchScrollRequest(scrollId).scroll(keepAlive), ActionListener.wrap(this::onPage, this::fail));
        }

        void finish() {
            if (scrollId != null) {
                ClearScrollRequest csr = new ClearScrollRequest();
                csr.addScrollId(scrollId);
                client.clearScroll(csr, ActionListener.wrap(r -> {}, e -> {}));
            }
            if (refresh && deleted > 0) {
                client.admin().indices().refresh(new RefreshRequest(indices).indicesOptions(indicesOptions),
                    ActionListener.wrap(r -> respond(), this::fail));
            } else {
                respond();
            }
        }

        void respond() {
            try {
                XContentBuilder b = channel.newBuilder();
                b.startObject();
                b.field("took", (System.nanoTime() - startNanos) / 1_000_000);
                b.field("timed_out", false);
                b.field("total", total + versionConflicts);
                b.field("deleted", deleted);
                b.field("batches", batches);
                b.field("version_conflicts", versionConflicts);
                b.field("noops", 0);
                b.startObject("retries").field("bulk", 0).field("search", 0).endObject();
                b.field("throttled_millis", 0);
                b.field("requests_per_second", -1.0f);
                b.field("throttled_until_millis", 0);
                b.startArray("failures");
                RestStatus status = RestStatus.OK;
                for (BulkItemResponse.Failure f : failures) {
                    b.startObject();
                    f.toXContent(b, ToXContent.EMPTY_PARAMS);
                    b.endObject();
                    if (f.getStatus().getStatus() > status.getStatus()) status = f.getStatus();
                }
                b.endArray();
                b.endObject();
                channel.sendResponse(new RestResponse(status, b));
            } catch (Exception e) {
                fail(e);
            }
        }

        void fail(Exception e) {
            if (scrollId != null) {
                ClearScrollRequest csr = new ClearScrollRequest();
                csr.addScrollId(scrollId);
                scrollId = null;
                client.clearScroll(csr, ActionListener.wrap(r -> {}, x -> {}));
            }
            try {
                channel.sendResponse(new RestResponse(channel, e));
            } catch (Exception inner) {
                inner.addSuppressed(e);
                throw new RuntimeException(inner);
            }
        }
    }
}
