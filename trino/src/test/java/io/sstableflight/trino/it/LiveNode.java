package io.sstableflight.trino.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The running Cassandra node the suite's differential reads, as
 * cassandra-harness exports it to the command it wraps (make trino-test:
 * {@code cassandra-harness run -mode oa -- deploy/local/trino-test.sh}).
 * A missing or unreachable node fails the suite: the differential never
 * skips.
 */
record LiveNode(int cqlPort, int jmxPort, Path dir)
{
    static final String CQL_PORT = "SSTF_CASSANDRA_CQL_PORT";
    static final String JMX_PORT = "SSTF_CASSANDRA_JMX_PORT";
    static final String DIR = "SSTF_CASSANDRA_DIR";
    static final String MODE = "SSTF_CASSANDRA_MODE";

    static LiveNode fromEnvironment()
    {
        String cql = System.getenv(CQL_PORT);
        if (cql == null || cql.isBlank()) {
            throw new IllegalStateException(("no Cassandra node: %s is not set. The suite's differential reads a live node: run it with make trino-test "
                    + "(cassandra-harness run -mode oa -- deploy/local/trino-test.sh), or against a running node with "
                    + "eval \"$(cassandra-harness env -dir DIR)\" first").formatted(CQL_PORT));
        }
        String mode = System.getenv(MODE);
        if (mode != null && !mode.equals(TestCluster.LIVE_MODE)) {
            throw new IllegalStateException("the Cassandra node writes %s SSTables (%s); the differential imports the %s corpus, so it needs an %s node".formatted(mode, MODE, TestCluster.LIVE_MODE, TestCluster.LIVE_MODE));
        }
        LiveNode node = new LiveNode(port(CQL_PORT, cql), port(JMX_PORT, System.getenv(JMX_PORT)), Path.of(required(DIR)));
        if (!Files.isDirectory(node.dataDir())) {
            throw new IllegalStateException("%s=%s has no data directory %s".formatted(DIR, node.dir(), node.dataDir()));
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", node.cqlPort()), 2000);
        }
        catch (IOException e) {
            throw new IllegalStateException("no Cassandra node answers on 127.0.0.1:%d (%s): %s; is the harness's node still running?".formatted(node.cqlPort(), CQL_PORT, e.getMessage()), e);
        }
        return node;
    }

    /** Where the node keeps its tables: {@code <keyspace>/<table>-<id>/}. */
    Path dataDir()
    {
        return dir.resolve("data");
    }

    private static String required(String name)
    {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set, though " + CQL_PORT + " is: set all of cassandra-harness env's variables");
        }
        return value;
    }

    private static int port(String name, String value)
    {
        try {
            return Integer.parseInt(required(name).strip());
        }
        catch (NumberFormatException e) {
            throw new IllegalStateException(name + "=" + value + " is not a port", e);
        }
    }
}
