package io.sstableflight.trino;

import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.flight.CallStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNAVAILABLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The page source's failover rule against Arrow Flight servers run in this
 * JVM (ScriptedFlightServers), each streaming a few batches of one int
 * column and then ending or failing as told: a location that fails before
 * its first batch is skipped when it says UNAVAILABLE; once a batch reached
 * Trino, a failure fails the split and the next location is never asked
 * (its rows would repeat those already read). A location that sends
 * nothing within sstable-flight.next-batch-timeout is skipped as one that
 * cannot be reached.
 */
class TestPageSourceFailover
{
    private ScriptedFlightServers servers;
    private final List<Integer> calls = new ArrayList<>();
    private FlightClientPool clients;
    private ExecutorService fetcher;
    /** Released as each test ends, so that a server's held stream ends too. */
    private final CountDownLatch endOfTest = new CountDownLatch(1);

    @BeforeEach
    void setUp()
    {
        servers = new ScriptedFlightServers();
        fetcher = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        endOfTest.countDown();
        if (clients != null) {
            clients.close();
        }
        servers.close();
        fetcher.shutdownNow();
    }

    /** A server that streams {@code batches} batches of 2 rows, then fails with {@code failure} (or ends when null). */
    private String server(int id, int batches, CallStatus failure)
            throws Exception
    {
        return servers.start((listener, root) -> {
            synchronized (calls) {
                calls.add(id);
            }
            listener.start(root);
            for (int b = 0; b < batches; b++) {
                ScriptedFlightServers.putBatch(listener, root, id * 100 + 2 * b, 2);
            }
            if (failure == null) {
                listener.completed();
            }
            else {
                listener.error(failure.toRuntimeException());
            }
        });
    }

    private List<Integer> read(String... locations)
    {
        return read(new SstableFlightConfig(), locations);
    }

    private List<Integer> read(SstableFlightConfig config, String... locations)
    {
        clients = new FlightClientPool(config.setUri(locations[0]));
        SstableFlightSplit split = new SstableFlightSplit(new byte[] {1}, List.of(locations));
        List<Integer> values = new ArrayList<>();
        try (SstableFlightPageSource source = new SstableFlightPageSource(clients, new TypeMapping(VARCHAR, new TypeOperators()), split, List.of(ScriptedFlightServers.V), fetcher)) {
            FlightTesting.drain(source, page -> {
                for (int i = 0; i < page.getPositionCount(); i++) {
                    values.add(INTEGER.getInt(page.getBlock(0), i));
                }
            });
        }
        return values;
    }

    @Test
    void unavailableBeforeTheFirstBatchMovesToTheNextLocation()
            throws Exception
    {
        String busy = server(1, 0, CallStatus.UNAVAILABLE.withDescription("every stream slot stayed busy"));
        String healthy = server(2, 2, null);
        assertThat(read(busy, healthy)).containsExactly(200, 201, 202, 203);
        assertThat(calls).containsExactly(1, 2);
    }

    @Test
    void aServerThatAnswersBusyIsAskedAgainUntilItAdmitsTheStream()
            throws Exception
    {
        // The server's admission answers UNAVAILABLE when every stream slot
        // stayed busy: Trino opens more splits at once than the server has
        // slots, and the query must wait its turn, not fail.
        AtomicInteger attempts = new AtomicInteger();
        String busyTwice = servers.start((listener, root) -> {
            if (attempts.incrementAndGet() <= 2) {
                listener.error(CallStatus.UNAVAILABLE.withDescription("admission: every stream slot is busy").toRuntimeException());
                return;
            }
            listener.start(root);
            ScriptedFlightServers.putBatch(listener, root, 7, 2);
            listener.completed();
        });
        assertThat(read(busyTwice)).containsExactly(7, 8);
        assertThat(attempts.get()).isEqualTo(3);
    }

    @Test
    void anUnreachableLocationIsNotAskedAgain()
            throws Exception
    {
        String dead;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = "grpc://127.0.0.1:" + socket.getLocalPort();
        }
        String unreachable = dead;
        long start = System.nanoTime();
        assertThatThrownBy(() -> read(unreachable))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_UNAVAILABLE.toErrorCode()))
                .hasMessageContaining("no location answered");
        // Nothing answered, so nothing will admit the stream later: no waiting.
        assertThat(System.nanoTime() - start).isLessThan(SECONDS.toNanos(20));
    }

    @Test
    void aFailureAfterABatchFailsTheSplitWithoutAskingTheNextLocation()
            throws Exception
    {
        String dying = server(1, 1, CallStatus.UNAVAILABLE.withDescription("the server is shutting down"));
        String healthy = server(2, 2, null);
        assertThatThrownBy(() -> read(dying, healthy))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_STREAM_FAILED.toErrorCode()))
                .hasMessageContaining("read split from " + dying)
                .hasMessageContaining("after 2 rows")
                .hasMessageContaining("UNAVAILABLE");
        assertThat(calls).containsExactly(1);
    }

    @Test
    void anotherErrorBeforeTheFirstBatchFailsAtOnce()
            throws Exception
    {
        String refusing = server(1, 0, CallStatus.INVALID_ARGUMENT.withDescription("read ticket: its signature does not verify"));
        String healthy = server(2, 2, null);
        assertThatThrownBy(() -> read(refusing, healthy))
                .isInstanceOf(TrinoException.class)
                .hasMessageContaining("INVALID_ARGUMENT")
                .hasMessageContaining("signature does not verify");
        assertThat(calls).containsExactly(1);
    }

    /** A server that takes the call and sends nothing, not even its schema, until the test ends. */
    private String silent()
            throws Exception
    {
        return servers.start((listener, root) -> endOfTest.await(30, SECONDS));
    }

    @Test
    void aLocationThatSendsNothingIsSkippedAfterNextBatchTimeout()
            throws Exception
    {
        String silent = silent();
        String healthy = server(2, 2, null);
        // 5 s: the healthy server's first batch is under the same bound.
        assertThat(read(new SstableFlightConfig().setNextBatchTimeout(new Duration(5, SECONDS)), silent, healthy)).containsExactly(200, 201, 202, 203);
    }

    @Test
    void noLocationSendingAnythingFailsNamingNextBatchTimeout()
            throws Exception
    {
        String silent = silent();
        assertThatThrownBy(() -> read(new SstableFlightConfig().setNextBatchTimeout(new Duration(1, SECONDS)), silent))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_UNAVAILABLE.toErrorCode()))
                // Nothing answered, so nothing to wait for: one round, no "(N rounds ...)".
                .hasMessageContaining("no location answered: %s (nothing within 1.00s (sstable-flight.next-batch-timeout))".formatted(silent));
    }
}
