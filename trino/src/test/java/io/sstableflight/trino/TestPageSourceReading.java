package io.sstableflight.trino;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.vector.BitVectorHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_MEMORY_LIMIT;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the page source reads, against Flight servers in this JVM whose
 * streams are held or sized as a test needs (ScriptedFlightServers): the
 * driver thread never waits on the network (isBlocked instead), the next
 * batch is fetched while Trino works on a page, each split reads into an
 * allocator of its own bounded by sstable-flight.split-memory-limit,
 * bytes, read time and memory are reported to Trino, a server that stops
 * sending fails its split after sstable-flight.next-batch-timeout, splits
 * outnumbering both the fetch threads and the server's stream slots all
 * finish, and streams take the server's channels in turn.
 */
class TestPageSourceReading
{
    private ScriptedFlightServers servers;
    private ExecutorService fetcher;
    private ExecutorService driver;
    private FlightClientPool clients;

    @BeforeEach
    void setUp()
    {
        servers = new ScriptedFlightServers();
        fetcher = Executors.newCachedThreadPool();
        driver = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        driver.shutdownNow();
        if (clients != null) {
            assertThat(clients.allocator().getAllocatedMemory()).as("the catalog's Arrow bytes after every page source closed").isZero();
            clients.close();
        }
        servers.close();
        fetcher.shutdownNow();
    }

    private SstableFlightPageSource source(String location, SstableFlightConfig config)
    {
        clients = new FlightClientPool(config.setUri(location));
        return source(location, fetcher);
    }

    /** Another page source over the same clients, as a query's next split. */
    private SstableFlightPageSource source(String location, ExecutorService fetchThreads)
    {
        SstableFlightSplit split = new SstableFlightSplit(new byte[] {1}, List.of(location));
        return new SstableFlightPageSource(clients, new TypeMapping(VARCHAR, new TypeOperators()), split, List.of(ScriptedFlightServers.V), fetchThreads);
    }

    /** Calls getNextSourcePage on another thread, as a driver would, failing if it does not return within a second. */
    private SourcePage nextPageWithoutWaiting(SstableFlightPageSource source)
            throws Exception
    {
        Future<SourcePage> call = driver.submit(source::getNextSourcePage);
        try {
            return call.get(1, SECONDS);
        }
        catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("getNextSourcePage blocked the driver thread on the network", e);
        }
    }

    @Test
    void theDriverThreadNeverWaitsOnTheNetworkAndTheNextBatchIsFetchedAhead()
            throws Exception
    {
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        String location = servers.start((listener, root) -> {
            listener.start(root);
            first.await();
            ScriptedFlightServers.putBatch(listener, root, 0, 3);
            second.await();
            ScriptedFlightServers.putBatch(listener, root, 3, 3);
            listener.completed();
        });
        try (SstableFlightPageSource source = source(location, new SstableFlightConfig())) {
            // The server holds its first batch: no page yet, and Trino is told to wait.
            assertThat(nextPageWithoutWaiting(source)).isNull();
            CompletableFuture<?> blocked = source.isBlocked();
            assertThat(blocked.isDone()).as("isBlocked while the server holds the first batch").isFalse();
            first.countDown();
            blocked.get(10, SECONDS);
            SourcePage page = nextPageWithoutWaiting(source);
            assertThat(page.getPositionCount()).isEqualTo(3);
            assertThat(INTEGER.getInt(page.getBlock(0), 2)).isEqualTo(2);

            // Trino holds page 1; the next batch is fetched meanwhile, without another call.
            CompletableFuture<?> ahead = source.isBlocked();
            assertThat(ahead.isDone()).as("isBlocked while the server holds the second batch").isFalse();
            second.countDown();
            ahead.get(10, SECONDS);
            assertThat(source.getMemoryUsage()).as("memory of the batch fetched ahead").isPositive();
            assertThat(nextPageWithoutWaiting(source).getPositionCount()).isEqualTo(3);
            source.isBlocked().get(10, SECONDS);
            assertThat(nextPageWithoutWaiting(source)).isNull();
            assertThat(source.isFinished()).isTrue();
        }
    }

    @Test
    void closingWhileAFetchWaitsCancelsItAndFreesEverything()
            throws Exception
    {
        CountDownLatch never = new CountDownLatch(1);
        String location = servers.start((listener, root) -> {
            listener.start(root);
            ScriptedFlightServers.putBatch(listener, root, 0, 3);
            // A slow server: the second batch does not come before the query ends (a LIMIT).
            never.await(30, SECONDS);
            listener.completed();
        });
        SstableFlightPageSource source = source(location, new SstableFlightConfig());
        source.isBlocked().get(10, SECONDS);
        assertThat(source.getNextSourcePage().getPositionCount()).isEqualTo(3);
        assertThat(source.isBlocked().isDone()).isFalse();
        long start = System.nanoTime();
        source.close();
        assertThat(System.nanoTime() - start).as("close with a fetch waiting").isLessThan(SECONDS.toNanos(5));
        assertThat(source.getMemoryUsage()).isZero();
        never.countDown();
    }

    @Test
    void eachSplitReadsIntoAnAllocatorBoundedBySplitMemoryLimit()
            throws Exception
    {
        // 1M ints: a 4 MB batch, over a 1 MB split limit but far under the catalog's 1 GB.
        String location = servers.start((listener, root) -> {
            listener.start(root);
            ScriptedFlightServers.putBatch(listener, root, 0, 1_000_000);
            listener.completed();
        });
        SstableFlightConfig config = new SstableFlightConfig().setSplitMemoryLimit(DataSize.of(1, DataSize.Unit.MEGABYTE));
        try (SstableFlightPageSource source = source(location, config)) {
            assertThatThrownBy(() -> FlightTesting.drain(source, _ -> {}))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_MEMORY_LIMIT.toErrorCode()))
                    .hasMessageContaining("read split from " + location)
                    .hasMessageContaining("sstable-flight.split-memory-limit 1MB");
        }
    }

    @Test
    void bytesReadTimeAndMemoryAreReported()
            throws Exception
    {
        String location = servers.start((listener, root) -> {
            listener.start(root);
            // The server takes its time: what Trino should see as read time, not as its own CPU.
            Thread.sleep(300);
            for (int b = 0; b < 4; b++) {
                ScriptedFlightServers.putBatch(listener, root, 10 * b, 10);
            }
            listener.completed();
        });
        List<Long> memory = new ArrayList<>();
        try (SstableFlightPageSource source = source(location, new SstableFlightConfig())) {
            long[] rows = {0};
            FlightTesting.drain(source, page -> {
                rows[0] += page.getPositionCount();
                memory.add(source.getMemoryUsage());
            });
            assertThat(rows[0]).isEqualTo(40);
            assertThat(source.getCompletedPositions()).hasValue(40);
            // Each batch's int vector: 10 values and their validity bits.
            assertThat(source.getCompletedBytes()).isEqualTo(4 * (10 * 4 + BitVectorHelper.getValidityBufferSizeFromCount(10)));
            assertThat(source.getReadTimeNanos()).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(300)).isLessThan(TimeUnit.SECONDS.toNanos(30));
            assertThat(memory).as("memory the split held after each page").allSatisfy(bytes -> assertThat(bytes).isGreaterThanOrEqualTo(0L));
        }
    }

    @Test
    void aServerThatStopsSendingFailsTheSplitAfterNextBatchTimeout()
            throws Exception
    {
        CountDownLatch cancelled = new CountDownLatch(1);
        String location = servers.start((listener, root) -> {
            listener.start(root);
            ScriptedFlightServers.putBatch(listener, root, 0, 3);
            // Alive, but sends nothing more: only the client's bound ends its wait.
            long deadline = System.nanoTime() + SECONDS.toNanos(30);
            while (!listener.isCancelled() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            if (listener.isCancelled()) {
                cancelled.countDown();
                return;
            }
            listener.completed();
        });
        // 5 s: the first batch is under the same bound.
        try (SstableFlightPageSource source = source(location, new SstableFlightConfig().setNextBatchTimeout(new Duration(5, SECONDS)))) {
            assertThatThrownBy(() -> FlightTesting.drain(source, _ -> {}))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_STREAM_FAILED.toErrorCode()))
                    .hasMessageContaining("read split from " + location)
                    .hasMessageContaining("no record batch within 5.00s after 3 rows (sstable-flight.next-batch-timeout)");
            assertThat(cancelled.await(10, SECONDS)).as("the server saw its stream cancelled").isTrue();
        }
    }

    /**
     * Eight splits, one fetch thread, a server with two stream slots: as
     * sstable-flight's admission, a stream beyond the slots waits briefly,
     * then answers UNAVAILABLE, and a stream sends each batch only once its
     * client has taken enough of the ones before (HTTP/2 flow control), so a
     * slot frees only when its split is read. Waiting for a slot must not
     * hold the thread the admitted splits need to read on.
     */
    @Test
    void moreSplitsThanFetchThreadsAndStreamSlotsAllFinish()
            throws Exception
    {
        int splits = 8;
        int batches = 20;
        // 1 MB a batch: far more than a stream's window and Flight's read-ahead hold.
        int batchRows = 250_000;
        Semaphore slots = new Semaphore(2);
        AtomicInteger busy = new AtomicInteger();
        String location = servers.start((listener, root) -> {
            if (!slots.tryAcquire(50, MILLISECONDS)) {
                busy.incrementAndGet();
                listener.error(CallStatus.UNAVAILABLE.withDescription("admission: every stream slot is busy").toRuntimeException());
                return;
            }
            try {
                listener.start(root);
                for (int b = 0; b < batches; b++) {
                    long stall = System.nanoTime() + SECONDS.toNanos(30);
                    while (!listener.isReady()) {
                        if (listener.isCancelled() || System.nanoTime() > stall) {
                            throw new IllegalStateException("the client took no data for 30 s");
                        }
                        Thread.sleep(1);
                    }
                    ScriptedFlightServers.putBatch(listener, root, b, batchRows);
                }
                listener.completed();
            }
            finally {
                slots.release();
            }
        });
        clients = new FlightClientPool(new SstableFlightConfig().setUri(location));
        ExecutorService oneThread = SstableFlightPageSourceProvider.newFetcher(1);
        ExecutorService drivers = Executors.newFixedThreadPool(splits);
        try {
            List<Future<Long>> reads = new ArrayList<>();
            for (int i = 0; i < splits; i++) {
                reads.add(drivers.submit(() -> {
                    long[] rows = {0};
                    try (SstableFlightPageSource source = source(location, oneThread)) {
                        FlightTesting.drain(source, page -> rows[0] += page.getPositionCount());
                    }
                    return rows[0];
                }));
            }
            for (Future<Long> read : reads) {
                assertThat(read.get(5, TimeUnit.MINUTES)).isEqualTo((long) batches * batchRows);
            }
            assertThat(busy.get()).as("streams the server answered busy").isPositive();
        }
        finally {
            drivers.shutdownNow();
            oneThread.shutdownNow();
        }
    }

    @Test
    void streamsTakeTheServersChannelsInTurn()
            throws Exception
    {
        String location = servers.start((listener, root) -> {
            listener.start(root);
            ScriptedFlightServers.putBatch(listener, root, 0, 1);
            listener.completed();
        });
        clients = new FlightClientPool(new SstableFlightConfig().setUri(location).setChannelsPerServer(3));
        for (int i = 0; i < 6; i++) {
            try (SstableFlightPageSource source = source(location, fetcher)) {
                FlightTesting.drain(source, _ -> {});
            }
        }
        assertThat(servers.peers()).as("client connections the server saw").hasSize(3);
    }

    @Test
    void aDynamicFilterDropsRowsAsItArrivesAndEndsTheSplitWhenItAdmitsNone()
            throws Exception
    {
        CountDownLatch second = new CountDownLatch(1);
        String location = servers.start((listener, root) -> {
            listener.start(root);
            ScriptedFlightServers.putBatch(listener, root, 0, 4);
            second.await();
            ScriptedFlightServers.putBatch(listener, root, 4, 4);
            listener.completed();
        });
        clients = new FlightClientPool(new SstableFlightConfig().setUri(location));
        ScriptedDynamicFilter dynamic = new ScriptedDynamicFilter(Set.of(ScriptedFlightServers.V));
        SstableFlightSplit split = new SstableFlightSplit(new byte[] {1}, List.of(location));
        List<Long> values = new ArrayList<>();
        try (SstableFlightPageSource source = new SstableFlightPageSource(clients, new TypeMapping(VARCHAR, new TypeOperators()), split, List.of(ScriptedFlightServers.V), fetcher, dynamic)) {
            // The first batch before the filter arrived: every row.
            source.isBlocked().get(10, SECONDS);
            collect(source.getNextSourcePage(), values);
            // It arrives: the next batch keeps what it admits.
            dynamic.complete(TupleDomain.withColumnDomains(Map.of(ScriptedFlightServers.V,
                    Domain.multipleValues(INTEGER, List.of(1L, 5L, 6L)))));
            second.countDown();
            FlightTesting.drain(source, page -> collect(page, values));
            assertThat(source.getCompletedPositions()).hasValue(8);
        }
        assertThat(values).containsExactly(0L, 1L, 2L, 3L, 5L, 6L);

        // A filter that admits nothing ends a split before it reads a row.
        ScriptedDynamicFilter empty = new ScriptedDynamicFilter(Set.of(ScriptedFlightServers.V));
        empty.complete(TupleDomain.none());
        try (SstableFlightPageSource source = new SstableFlightPageSource(clients, new TypeMapping(VARCHAR, new TypeOperators()), split, List.of(ScriptedFlightServers.V), fetcher, empty)) {
            assertThat(source.getNextSourcePage()).isNull();
            assertThat(source.isFinished()).isTrue();
            assertThat(source.getCompletedPositions()).hasValue(0);
        }
    }

    private static void collect(SourcePage page, List<Long> values)
    {
        if (page == null) {
            return;
        }
        Block block = page.getBlock(0);
        for (int i = 0; i < page.getPositionCount(); i++) {
            values.add((long) INTEGER.getInt(block, i));
        }
    }
}
