/*
 * DocQA test infrastructure: a PluginsService that instantiates plugin classes
 * found on the JVM classpath (transport-netty4 and DocQA's shims) in addition to
 * whatever (normally nothing) is in the modules/ and plugins/ directories.
 *
 * Lives in package org.elasticsearch.plugins for access to loadPlugin() and
 * LoadedPlugin. Approach follows codelibs/elasticsearch-cluster-runner 8.x
 * (ClusterRunnerPluginsService).
 */
package org.elasticsearch.plugins;

import org.elasticsearch.Version;
import org.elasticsearch.action.admin.cluster.node.info.PluginsAndModules;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.jdk.ModuleQualifiedExportsService;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

public class DocqaPluginsService extends PluginsService {

    private final List<LoadedPlugin> allPlugins;
    private final PluginsAndModules allInfo;

    public DocqaPluginsService(Settings settings, Environment environment, Collection<Class<? extends Plugin>> classpathPlugins) {
        super(settings, environment.configFile(), environment.modulesFile(), environment.pluginsFile());

        List<LoadedPlugin> loaded = new ArrayList<>();
        List<PluginDescriptor> moduleInfos = new ArrayList<>(super.info().getModuleInfos());
        for (Class<? extends Plugin> pluginClass : classpathPlugins) {
            Plugin plugin = loadPlugin(pluginClass, settings, environment.configFile());
            PluginDescriptor descriptor = new PluginDescriptor(
                pluginClass.getSimpleName(),
                "classpath module " + pluginClass.getName(),
                Version.CURRENT.toString(),
                Version.CURRENT.toString(),
                Integer.toString(Runtime.version().feature()),
                pluginClass.getName(),
                null,
                List.of(),
                false,
                false,
                false,
                false
            );
            loaded.add(new LoadedPlugin(descriptor, plugin));
            moduleInfos.add(descriptor);
        }
        loaded.addAll(super.plugins());
        this.allPlugins = List.copyOf(loaded);
        this.allInfo = new PluginsAndModules(super.info().getPluginInfos(), moduleInfos);
        // Extensible plugins (none of ours today) would get their extensions here.
        loadExtensions(this.allPlugins);
    }

    @Override
    protected final List<LoadedPlugin> plugins() {
        return allPlugins;
    }

    @Override
    public PluginsAndModules info() {
        return allInfo;
    }

    @Override
    protected void addServerExportsService(Map<String, List<ModuleQualifiedExportsService>> qualifiedExports) {
        // Server runs on the classpath (unnamed module): no qualified exports to wire.
    }
}
