package io.sstableflight.trino.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sstableflight.trino.FlightClientPool;
import io.sstableflight.trino.SstableFlightConfig;
import org.apache.arrow.flight.FlightInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code CALL sstable_flush.system.flush_metadata_cache()} through a real
 * Trino, against a server of the test's own over the live node. Catalog
 * sstable_flush keeps its listing and table-stats for an hour, so a table
 * dropped in Cassandra, and a table grown by a flushed SSTable, look as
 * they were to Trino after the server itself already shows the change;
 * after the call, Trino shows what the server does. (A new table needs no
 * call: a name the kept listing lacks is looked up again at once.)
 */
@ExtendWith(TestClusterExtension.class)
class FlushMetadataCacheIT
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CATALOG = "sstable_flush";
    private static final Duration SERVER_WAIT = Duration.ofSeconds(120);

    private static String keyspace;
    private static ManagedProcess server;
    private static FlightClientPool clients;

    @BeforeAll
    static void writeTablesAndStartServer()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        keyspace = "trino_it_ops_flush_" + ProcessHandle.current().pid();
        try (Connection connection = cluster.connect(); CassandraJmx jmx = new CassandraJmx(cluster.node().jmxPort())) {
            CqlThroughTrino.execute(connection, "cassandra", "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}".formatted(keyspace));
            for (String table : List.of("kept", "dropped")) {
                CqlThroughTrino.execute(connection, "cassandra", "CREATE TABLE %s.%s (k int PRIMARY KEY, v text) WITH allow_auto_snapshot = false".formatted(keyspace, table));
                CqlThroughTrino.insert(connection, "INSERT INTO cassandra.%s.%s (k, v) SELECT CAST(x AS integer), 'v' FROM UNNEST(sequence(1, 10)) AS t(x)".formatted(keyspace, table));
            }
            jmx.flush(keyspace);
        }
        server = cluster.startServer("flush", cluster.node().dataDir(), cluster.flushPort(), List.of("--cassandra", "127.0.0.1:" + cluster.node().cqlPort()));
        clients = new FlightClientPool(new SstableFlightConfig().setUri("grpc://127.0.0.1:" + cluster.flushPort()));
    }

    @AfterAll
    static void dropKeyspaceAndStopServer()
            throws Exception
    {
        if (clients != null) {
            clients.close();
        }
        if (server != null) {
            server.close();
        }
        try (Connection connection = TestCluster.get().connect()) {
            LiveCorpus.drop(connection, keyspace, TestCluster.get().node().dataDir());
        }
    }

    @Test
    void aDroppedTableAndNewStatisticsShowOnlyAfterTheCall()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        try (Connection connection = cluster.connect(); CassandraJmx jmx = new CassandraJmx(cluster.node().jmxPort())) {
            // Trino keeps what it sees first: both tables, and kept's estimate of 10 rows.
            assertThat(tables(connection)).containsExactly("dropped", "kept");
            long rowsBefore = rowCount(connection, "kept");
            assertThat(rowsBefore).isEqualTo(serverRows("kept"));

            CqlThroughTrino.execute(connection, "cassandra", "DROP TABLE %s.dropped".formatted(keyspace));
            CqlThroughTrino.insert(connection, "INSERT INTO cassandra.%s.kept (k, v) SELECT CAST(x AS integer), 'v' FROM UNNEST(sequence(11, 30)) AS t(x)".formatted(keyspace));
            jmx.flush(keyspace);
            // The server shows both changes (it re-reads the schema and its SSTables on its own) ...
            awaitServer("the server no longer lists %s.dropped".formatted(keyspace), this::serverTables, listed -> !listed.contains("dropped"));
            long rowsNow = awaitServer("the server's estimate of %s.kept grows".formatted(keyspace), () -> serverRows("kept"), rows -> rows > rowsBefore);

            // ... which Trino does not see while it keeps its listing and stats (an hour) ...
            assertThat(tables(connection)).as("the kept listing").containsExactly("dropped", "kept");
            assertThat(rowCount(connection, "kept")).as("the kept table-stats").isEqualTo(rowsBefore);

            try (Statement statement = connection.createStatement()) {
                statement.execute("CALL %s.system.flush_metadata_cache()".formatted(CATALOG));
            }

            // ... until the call drops them.
            assertThat(tables(connection)).containsExactly("kept");
            assertThat(rowCount(connection, "kept")).isEqualTo(rowsNow);
        }
    }

    private List<String> tables(Connection connection)
            throws SQLException
    {
        List<String> tables = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW TABLES FROM %s.%s".formatted(CATALOG, keyspace))) {
            while (rows.next()) {
                tables.add(rows.getString(1));
            }
        }
        return tables.stream().sorted().toList();
    }

    /** SHOW STATS' row count of a table: the server's table-stats as the catalog has it. */
    private static long rowCount(Connection connection, String table)
            throws SQLException
    {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW STATS FOR %s.%s.%s".formatted(CATALOG, keyspace, table))) {
            while (rows.next()) {
                if (rows.getString("column_name") == null) {
                    return (long) rows.getDouble("row_count");
                }
            }
        }
        throw new AssertionError("SHOW STATS FOR %s.%s gave no summary row".formatted(keyspace, table));
    }

    private List<String> serverTables()
    {
        return clients.listFlights().stream()
                .map(FlightInfo::getDescriptor)
                .filter(descriptor -> descriptor.getPath().getFirst().equals(keyspace))
                .map(descriptor -> descriptor.getPath().get(1))
                .toList();
    }

    /** The server's rows_estimate of a table, asked directly. */
    private static long serverRows(String table)
    {
        // "table-stats": flightserver.ActionTableStats (flightserver/actions.go)
        byte[] body = clients.doAction("table-stats", "{\"keyspace\":\"%s\",\"table\":\"%s\"}".formatted(keyspace, table).getBytes(UTF_8));
        try {
            return JSON.readTree(body).path("rows_estimate").asLong(-1);
        }
        catch (IOException e) {
            throw new IllegalStateException("table-stats of %s: %s".formatted(table, new String(body, UTF_8)), e);
        }
    }

    private static <T> T awaitServer(String what, Supplier<T> read, Predicate<T> done)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SERVER_WAIT.toNanos();
        T value = read.get();
        while (!done.test(value)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited %d s for %s; last seen: %s".formatted(SERVER_WAIT.toSeconds(), what, value));
            }
            Thread.sleep(500);
            value = read.get();
        }
        return value;
    }
}
