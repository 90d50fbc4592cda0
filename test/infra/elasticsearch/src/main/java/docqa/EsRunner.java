package docqa;

import org.elasticsearch.Build;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.DocqaNode;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.DocqaPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.transport.netty4.Netty4Plugin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts a single-node Elasticsearch (the real server jar from Maven Central) in
 * the foreground, with plugins loaded from the classpath.
 *
 * Usage: EsRunner <httpPort> <dataDir> [-Ekey=value ...]
 *
 * SIGTERM/SIGINT closes the node cleanly (JVM shutdown hook).
 */
public final class EsRunner {

    static final List<Class<? extends Plugin>> CLASSPATH_PLUGINS = List.of(
        Netty4Plugin.class,          // HTTP + transport (the real transport-netty4 module)
        DocqaRestRootPlugin.class,   // GET / (stand-in for the rest-root module)
        DocqaAnalysisPlugin.class,   // english & other language analyzers (stand-in for analysis-common)
        DocqaDeleteByQueryPlugin.class // POST /{index}/_delete_by_query (stand-in for the reindex module)
    );

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: EsRunner <httpPort> <dataDir> [-Ekey=value ...]");
            System.exit(2);
        }
        final String httpPort = args[0];
        final Path dataDir = Path.of(args[1]).toAbsolutePath().normalize();
        final Path home = dataDir.resolve("home");
        for (String d : new String[] { "config", "modules", "plugins" }) {
            Files.createDirectories(home.resolve(d));
        }
        Files.createDirectories(dataDir.resolve("data"));
        Files.createDirectories(dataDir.resolve("logs"));
        Files.createDirectories(dataDir.resolve("tmp"));

        Settings.Builder sb = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", dataDir.resolve("data").toString())
            .put("path.logs", dataDir.resolve("logs").toString())
            .put("cluster.name", "docqa-test")
            .put("node.name", "docqa-es-" + httpPort)
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            .put("transport.port", "0")
            .put("discovery.type", "single-node")
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("logger.level", envOr("ES_LOG_LEVEL", "WARN"));
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("-E") || !a.contains("=")) {
                throw new IllegalArgumentException("unexpected argument [" + a + "], expected -Ekey=value");
            }
            String kv = a.substring(2);
            int eq = kv.indexOf('=');
            sb.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        final Settings settings = sb.build();

        // ES logging: route org.elasticsearch.logging to log4j and configure a console appender.
        LogConfigurator.configureESLogging();
        LogConfigurator.configureWithoutConfig(settings);

        final Environment env = InternalSettingsPreparer.prepareEnvironment(
            settings,
            Map.of(),
            home.resolve("config"),
            () -> settings.get("node.name")
        );

        final long t0 = System.nanoTime();
        final Node node;
        try {
            node = new DocqaNode(env, (e, s) -> new DocqaPluginsService(s, e, CLASSPATH_PLUGINS));
        } catch (Throwable t) {
            die("failed to construct node", t);
            return;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(20, TimeUnit.SECONDS);
            } catch (Throwable ex) {
                ex.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "docqa-es-shutdown"));
        try {
            node.start();
        } catch (Throwable t) {
            // ES thread pools are non-daemon: without an explicit exit the JVM would hang here.
            die("failed to start node", t);
            return;
        }
        final String version = Build.current().qualifiedVersion();
        Files.writeString(dataDir.resolve("ES_VERSION"), version + "\n");
        System.out.printf(
            "[docqa-es] Elasticsearch %s started on http://127.0.0.1:%s (data %s) in %d ms%n",
            version,
            httpPort,
            dataDir,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)
        );
        System.out.flush();
        stopped.await();
    }

    private static void die(String what, Throwable t) {
        System.err.println("[docqa-es] " + what + ": " + t);
        t.printStackTrace();
        System.err.flush();
        // halt: skip shutdown hooks, which would try to close a half-built node
        Runtime.getRuntime().halt(1);
    }

    private static String envOr(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
