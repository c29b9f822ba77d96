package io.sstableflight.trino.it;

import io.sstableflight.trino.FlightClientPool;
import io.sstableflight.trino.FlightTesting;
import io.sstableflight.trino.SstableFlightConfig;
import io.sstableflight.trino.SstableFlightSplit;
import io.trino.spi.TrinoException;
import org.apache.arrow.flight.FlightInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server killed (SIGKILL) in the middle of a split: the live node gets a
 * table of {@value #ROWS} rows of {@value #VALUE_CHARS} characters written
 * through CQL and flushed, a server of its own over the node's data
 * directory streams it in batches of {@value #BATCH_ROWS} rows (40 MB: far
 * more than gRPC's window and the sockets' buffers hold, so the server is
 * still sending when it dies), and is killed once the page source has
 * handed out its first page. Reading on must fail naming the server and how
 * far it got, never end as a short, successful split; through Trino, the
 * query fails with that message.
 */
@ExtendWith(TestClusterExtension.class)
class ServerKillIT
{
    private static final int ROWS = 4000;
    private static final int VALUE_CHARS = 10_000;
    private static final int BATCH_ROWS = 16;
    private static final Pattern ROWS_READ = Pattern.compile("the stream failed after (\\d+) rows");

    private static String keyspace;

    @BeforeAll
    static void writeTable()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        keyspace = "trino_it_kill_" + ProcessHandle.current().pid();
        try (Connection connection = cluster.connect(); CassandraJmx jmx = new CassandraJmx(cluster.node().jmxPort())) {
            CqlThroughTrino.execute(connection, "cassandra", "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}".formatted(keyspace));
            CqlThroughTrino.execute(connection, "cassandra", "CREATE TABLE %s.big (k int PRIMARY KEY, v text) WITH allow_auto_snapshot = false".formatted(keyspace));
            CqlThroughTrino.insert(connection, "INSERT INTO cassandra.%s.big (k, v) SELECT CAST(x AS integer), rpad(CAST(x AS varchar), %d, 'x') FROM UNNEST(sequence(1, %d)) AS t(x)"
                    .formatted(keyspace, VALUE_CHARS, ROWS));
            jmx.flush(keyspace);
        }
    }

    /** A server of the test's own over the live node's data, streaming the table in small batches. */
    private static ManagedProcess startServer(TestCluster cluster, String name, int port)
            throws Exception
    {
        return cluster.startServer(name, cluster.node().dataDir(), port, List.of(
                "--cassandra", "127.0.0.1:" + cluster.node().cqlPort(),
                "--batch-rows", Integer.toString(BATCH_ROWS)));
    }

    @AfterAll
    static void dropTable()
            throws Exception
    {
        try (Connection connection = TestCluster.get().connect()) {
            LiveCorpus.drop(connection, keyspace, TestCluster.get().node().dataDir());
        }
    }

    @Test
    void aServerKilledMidSplitFailsTheSplitNamingIt()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        int port = TestCluster.freePort();
        ManagedProcess server = startServer(cluster, "kill", port);
        String uri = "grpc://127.0.0.1:" + port;
        try (FlightClientPool clients = new FlightClientPool(new SstableFlightConfig().setUri(uri))) {
            FlightInfo info = clients.getFlightInfo("{\"version\":1,\"keyspace\":\"%s\",\"table\":\"big\",\"splits\":1}".formatted(keyspace).getBytes(UTF_8)).value();
            assertThat(info.getEndpoints()).hasSize(1);
            SstableFlightSplit split = new SstableFlightSplit(info.getEndpoints().getFirst().getTicket().getBytes(), List.of(uri));
            assertThatThrownBy(() -> FlightTesting.countRows(clients, split, "big", server::kill))
                    .isInstanceOf(TrinoException.class)
                    .hasMessageContaining("read split from " + uri)
                    .satisfies(e -> {
                        Matcher rows = ROWS_READ.matcher(e.getMessage());
                        assertThat(rows.find()).as("the error says how many rows were read: %s", e.getMessage()).isTrue();
                        assertThat(Long.parseLong(rows.group(1))).isBetween((long) BATCH_ROWS, ROWS - 1L);
                    });
        }
        finally {
            server.close();
        }
    }

    /**
     * The same kill through a query: catalog {@code sstable_kill} names only
     * this server. Each row leaves Trino four times as wide as it came in, so
     * Trino's output buffers fill on a fraction of the 40 MB stream and hold
     * the page source, and the server's stream behind it, while the client
     * has read one row. The query must then fail naming the server, never
     * finish short.
     */
    @Test
    void aServerKilledMidSplitFailsTheQueryNamingIt()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        int port = cluster.killPort();
        ManagedProcess server = startServer(cluster, "kill-query", port);
        String uri = "grpc://127.0.0.1:" + port;
        try (Connection connection = cluster.connect(); Statement statement = connection.createStatement()) {
            ResultSet rows = statement.executeQuery("SELECT k, v || v || v || v FROM sstable_kill.%s.big".formatted(keyspace));
            assertThat(rows.next()).as("the query's first row").isTrue();
            server.kill();
            assertThatThrownBy(() -> {
                int read = 1;
                while (rows.next()) {
                    read++;
                }
                throw new AssertionError("the query ended without an error after %d of %d rows".formatted(read, ROWS));
            })
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("read split from " + uri)
                    .hasMessageContaining("the stream failed after");
        }
        finally {
            server.close();
        }
    }
}
