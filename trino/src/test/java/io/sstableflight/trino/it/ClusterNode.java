package io.sstableflight.trino.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One node of the harness's three-node cluster (cassandra-harness run
 * -cluster 3 exports its directory as SSTF_CASSANDRA_CLUSTER_DIR): its
 * loopback address (127.0.0.1, .2, .3), data centre, CQL and JMX ports and directory,
 * read from the {@code cluster.json} and {@code <node>/node.json} files the
 * harness writes (internal/testkit/cassandratest).
 */
record ClusterNode(String address, String dc, int cqlPort, int jmxPort, Path dir)
{
    static final String CLUSTER_DIR = "SSTF_CASSANDRA_CLUSTER_DIR";

    /** Where the node keeps its tables: {@code <keyspace>/<table>-<id>/}. */
    Path dataDir()
    {
        return dir.resolve("data");
    }

    /** The nodes of the cluster, in the harness's order; a missing cluster fails the suite naming what to run. */
    static List<ClusterNode> fromEnvironment()
    {
        String value = System.getenv(CLUSTER_DIR);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(("no Cassandra cluster: %s is not set. ClusterIT reads a three-node cluster: run the suite with make trino-test "
                    + "(cassandra-harness run -mode oa -cluster 3 -- deploy/local/trino-test.sh), or eval \"$(cassandra-harness env -dir DIR)\" of a running cluster first").formatted(CLUSTER_DIR));
        }
        Path clusterDir = Path.of(value);
        ObjectMapper json = new ObjectMapper();
        try {
            List<ClusterNode> nodes = new ArrayList<>();
            for (JsonNode name : json.readTree(clusterDir.resolve("cluster.json").toFile()).path("nodes")) {
                JsonNode node = json.readTree(clusterDir.resolve(name.asText()).resolve("node.json").toFile());
                Path dir = Path.of(node.path("dir").asText());
                if (!Files.isDirectory(dir.resolve("data"))) {
                    throw new IllegalStateException("%s=%s: node %s has no data directory %s".formatted(CLUSTER_DIR, clusterDir, name.asText(), dir.resolve("data")));
                }
                nodes.add(new ClusterNode(node.path("address").asText(), node.path("dc").asText(), node.path("cql_port").asInt(), node.path("jmx_port").asInt(), dir));
            }
            if (nodes.size() != 3) {
                throw new IllegalStateException("%s=%s holds %d nodes; ClusterIT needs 3 (cassandra-harness run -cluster 3)".formatted(CLUSTER_DIR, clusterDir, nodes.size()));
            }
            return List.copyOf(nodes);
        }
        catch (IOException e) {
            throw new IllegalStateException("read the cluster's layout in %s=%s: %s".formatted(CLUSTER_DIR, clusterDir, e.getMessage()), e);
        }
    }
}
