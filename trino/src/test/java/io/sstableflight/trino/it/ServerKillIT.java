package io.sstableflight.trino.it;

import io.sstableflight.trino.FlightClientPool;
import io.sstableflight.trino.FlightTesting;
import io.sstableflight.trino.SstableFlightConfig;
import io.sstableflight.trino.SstableFlightSplit;
import io.airlift.units.Duration;
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

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNAVAILABLE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
 *
 * The same server stopped (SIGSTOP) rather than killed answers nothing,
 * while its connections stay open and its kernel acknowledges: the split
 * must fail all the same, within a bound far below any query timeout,
 * never wait forever. Mid-stream, gRPC's keepalive finds the connection
 * dead (about 40 s, FlightChannels), or sstable-flight.next-batch-timeout
 * ends the wait when set lower; while a split opens on a connection made
 * before the stop, the keepalive fails it too.
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

    /** The table as one split, planned on the server. */
    private static SstableFlightSplit plan(FlightClientPool clients, String uri)
    {
        FlightInfo info = clients.getFlightInfo("{\"version\":1,\"keyspace\":\"%s\",\"table\":\"big\",\"splits\":1}".formatted(keyspace).getBytes(UTF_8)).value();
        assertThat(info.getEndpoints()).hasSize(1);
        return new SstableFlightSplit(info.getEndpoints().getFirst().getTicket().getBytes(), List.of(uri));
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
            SstableFlightSplit split = plan(clients, uri);
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

    /** The shortest keepalive the server permits (a ping every 10 s), and a short wait for its answer: the test waits 12 s, not 40. */
    private static SstableFlightConfig fastKeepalive(SstableFlightConfig config)
    {
        return config.setKeepaliveTime(new Duration(10, SECONDS)).setKeepaliveTimeout(new Duration(2, SECONDS));
    }

    @Test
    void aServerStoppedMidSplitFailsTheSplitThroughKeepalive()
            throws Exception
    {
        // next-batch-timeout at its default (5 minutes): only the keepalive can end this in time.
        SstableFlightConfig config = fastKeepalive(new SstableFlightConfig());
        assertThat(config.getNextBatchTimeout()).isEqualTo(new Duration(5, java.util.concurrent.TimeUnit.MINUTES));
        TrinoException failure = readWhileStopped("stop-keepalive", config, true);
        assertThat(failure.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_STREAM_FAILED.toErrorCode());
        assertThat(failure.getMessage()).contains("the stream failed after").contains("UNAVAILABLE Keepalive failed");
    }

    @Test
    void aServerStoppedMidSplitFailsTheSplitAfterNextBatchTimeout()
            throws Exception
    {
        TrinoException failure = readWhileStopped("stop-timeout", new SstableFlightConfig().setNextBatchTimeout(new Duration(5, SECONDS)), true);
        assertThat(failure.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_STREAM_FAILED.toErrorCode());
        assertThat(failure.getMessage()).contains("no record batch within 5.00s after").contains("(sstable-flight.next-batch-timeout)");
    }

    @Test
    void aServerStoppedWhileASplitOpensFailsItThroughKeepalive()
            throws Exception
    {
        // One channel: the split opens on the connection planning made, idle once the plan came.
        TrinoException failure = readWhileStopped("stop-open", fastKeepalive(new SstableFlightConfig().setChannelsPerServer(1)), false);
        assertThat(failure.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_UNAVAILABLE.toErrorCode());
        assertThat(failure.getMessage()).contains("no location answered").contains("Keepalive failed");
    }

    /**
     * Plans the table on a server of the test's own, stops the server
     * (SIGSTOP) after the split's first page, or before it opens, and
     * returns how reading failed, which it must within three minutes of the
     * stop, well under the default next-batch-timeout of five. The server is
     * resumed (SIGCONT) and stopped at the end.
     */
    private static TrinoException readWhileStopped(String name, SstableFlightConfig config, boolean afterFirstPage)
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        int port = TestCluster.freePort();
        ManagedProcess server = startServer(cluster, name, port);
        String uri = "grpc://127.0.0.1:" + port;
        long[] stoppedAt = {0};
        Runnable stop = () -> {
            server.stop();
            stoppedAt[0] = System.nanoTime();
        };
        try (FlightClientPool clients = new FlightClientPool(config.setUri(uri))) {
            SstableFlightSplit split = plan(clients, uri);
            if (!afterFirstPage) {
                stop.run();
            }
            TrinoException failure = catchThrowableOfType(TrinoException.class, () -> FlightTesting.countRows(clients, split, "big", afterFirstPage ? stop : () -> {}));
            assertThat(failure).as("reading a stopped server's split must fail").isNotNull();
            long waited = NANOSECONDS.toSeconds(System.nanoTime() - stoppedAt[0]);
            assertThat(waited).as("seconds from the stop to the split's failure: %s", failure.getMessage()).isLessThan(180);
            assertThat(failure.getMessage()).contains(uri);
            System.out.printf("ServerKillIT %s: failed %d s after the stop: %s%n", name, waited, failure.getMessage());
            return failure;
        }
        finally {
            server.resume();
            server.close();
        }
    }
}
