package io.sstableflight.trino.it;

import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import io.sstableflight.trino.SstableFlightPlugin;
import io.trino.Session;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import io.trino.tpch.TpchTable;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static io.trino.testing.TestingSession.testSessionBuilder;

/**
 * Trino in this JVM, as trino-testing runs it for Trino's own connectors
 * (a coordinator and two workers), with catalog {@value #CATALOG} of this
 * connector, installed from the test classpath, reading TPC-H tables that
 * the live Cassandra node wrote, through one sstable-flight server:
 *
 * - catalog {@code tpch} (Trino's TPC-H generator) is the rows' source;
 * - catalog {@code cassandra} (Trino 476's own connector, from the server
 *   tarball, {@link TarballPlugin}) writes them into keyspace
 *   {@code tpchtesting<pid>} of the node ({@link TpchKeyspace}), which is
 *   then flushed over JMX;
 * - the flushed SSTables are copied with their schema.cql into a data
 *   directory of this run, and the server reads that one: over the whole
 *   node's data directory with {@code --cassandra} (as TestCluster serves
 *   the differential) the catalog would list every keyspace others make on
 *   the shared node, and one table there that the server cannot type fails
 *   its schema read for all (docs/testing.md).
 *
 * The keyspace is dropped once copied; closing the runner stops the
 * server and removes the copy. Inputs are the integration suite's:
 * {@code sstf.server.binary}, {@code sstf.trino.home}, {@code sstf.work.dir}
 * and the harness's {@code SSTF_CASSANDRA_*}; a missing one fails the
 * suite naming it.
 */
final class SstableFlightQueryRunner
{
    static final String CATALOG = "sstable_flight";
    private static final String CASSANDRA = "cassandra";

    private SstableFlightQueryRunner() {}

    static QueryRunner create(List<TpchTable<?>> tables)
            throws Exception
    {
        Path binary = Path.of(required("sstf.server.binary"));
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("sstf.server.binary " + binary + " is not an executable: go build -o build/sstable-flight ./cmd/sstable-flight");
        }
        Path trinoHome = Path.of(required("sstf.trino.home"));
        Path workDir = Files.createDirectories(Path.of(required("sstf.work.dir")).toAbsolutePath());
        LiveNode node = LiveNode.fromEnvironment();
        // No underscore: the catalog lists this keyspace and information_schema alone, and testShowSchemasLikeWithEscape needs a schema without one.
        TpchKeyspace keyspace = new TpchKeyspace("tpchtesting" + ProcessHandle.current().pid(), tables);

        Session session = testSessionBuilder().setCatalog(CATALOG).setSchema(keyspace.name()).build();
        DistributedQueryRunner runner = DistributedQueryRunner.builder(session).build();
        try {
            runner.installPlugin(new TpchPlugin());
            runner.createCatalog("tpch", "tpch", Map.of());
            TarballPlugin.install(runner, trinoHome, CASSANDRA);
            runner.createCatalog(CASSANDRA, "cassandra", Map.of(
                    "cassandra.contact-points", "127.0.0.1",
                    "cassandra.native-protocol-port", Integer.toString(node.cqlPort()),
                    "cassandra.load-policy.dc-aware.local-dc", "datacenter1"));

            Path dataDir = workDir.resolve("connector-test-data");
            deleteIfExists(dataDir);
            // Resources close in reverse: the server stops, then its data directory goes, then the nodes.
            runner.registerResource(() -> deleteIfExists(dataDir));
            long start = System.nanoTime();
            try (Connection trino = connect(runner); CassandraJmx jmx = new CassandraJmx(node.jmxPort())) {
                try {
                    keyspace.load(trino, CASSANDRA);
                    jmx.flush(keyspace.name());
                    keyspace.copy(node.dataDir(), dataDir);
                }
                finally {
                    // The server reads the copy: the shared node keeps nothing of this run.
                    keyspace.drop(trino, CASSANDRA);
                    LiveCorpus.removeEmptyDirectories(node.dataDir(), keyspace.name());
                }
            }
            System.err.printf("SstableFlightQueryRunner: %d TPC-H tables in keyspace %s of the node on port %d, in %.1f s%n", tables.size(), keyspace.name(), node.cqlPort(), (System.nanoTime() - start) / 1e9);

            int port = TestCluster.freePort();
            ManagedProcess server = ManagedProcess.start("sstable-flight-connector-test", List.of(
                    binary.toString(),
                    "--data-dir", dataDir.toString(),
                    "--snapshot-dir", Files.createDirectories(workDir.resolve("snapshots-connector-test")).toString(),
                    "--listen", "127.0.0.1:" + port,
                    "--admin-listen", "",
                    "--drain-timeout", "2s"), Map.of(), workDir);
            runner.registerResource(server);
            TestCluster.awaitPort(server, "127.0.0.1", port, 60);

            runner.installPlugin(new SstableFlightPlugin());
            runner.createCatalog(CATALOG, "sstable_flight", Map.of("sstable-flight.uri", "grpc://127.0.0.1:" + port));
            return runner;
        }
        catch (Throwable e) {
            runner.close();
            throw e;
        }
    }

    private static void deleteIfExists(Path dir)
            throws IOException
    {
        if (Files.exists(dir)) {
            MoreFiles.deleteRecursively(dir, RecursiveDeleteOption.ALLOW_INSECURE);
        }
    }

    /** JDBC to the runner's coordinator, for what CqlThroughTrino writes. */
    private static Connection connect(QueryRunner runner)
            throws SQLException
    {
        URI uri = ((DistributedQueryRunner) runner).getCoordinator().getBaseUrl();
        Properties properties = new Properties();
        properties.setProperty("user", "connector-test");
        return DriverManager.getConnection("jdbc:trino://%s:%d".formatted(uri.getHost(), uri.getPort()), properties);
    }

    private static String required(String property)
    {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " is not set: run the suite with deploy/local/trino-test.sh (make trino-test)");
        }
        return value;
    }
}
