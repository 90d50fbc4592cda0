/*
 * DocQA test infrastructure: an Elasticsearch Node whose plugins come from the
 * classpath instead of $ES_HOME/modules + $ES_HOME/plugins.
 *
 * Lives in package org.elasticsearch.node because NodeConstruction and
 * NodeServiceProvider are package-private. Approach follows the 8.x branch of
 * codelibs/elasticsearch-cluster-runner (ClusterRunnerNode).
 */
package org.elasticsearch.node;

import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.PluginsService;

import java.util.function.BiFunction;

public class DocqaNode extends Node {

    public DocqaNode(Environment environment, BiFunction<Environment, Settings, PluginsService> pluginsServiceFactory) {
        super(NodeConstruction.prepareConstruction(environment, new NodeServiceProvider() {
            @Override
            PluginsService newPluginService(Environment env, Settings settings) {
                return pluginsServiceFactory.apply(env, settings);
            }
        }, true));
    }

    @Override
    protected void configureNodeAndClusterIdStateListener(ClusterService clusterService) {
        // The default implementation wires APM/log4j node-id listeners; nothing needed here.
    }
}
