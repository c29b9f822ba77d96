package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.SourcePage;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.net.URI;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_MEMORY_LIMIT;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Reads one split's DoGet stream and hands Trino one page per record batch.
 *
 * Fetching ahead, and no thread waiting on the network: Trino's driver
 * thread never waits on a server, and neither does any other thread of the
 * connector. gRPC receives a stream's messages on its own threads and
 * queues a few ahead of the reader (Flight asks for them); StreamArrivals
 * says when the next one is there. Until it is, getNextSourcePage returns
 * null and isBlocked a future that completes when it is; then a task on
 * the catalog's fetch executor takes it into the stream's root
 * (FlightStream.next(), which then returns at once), and the driver
 * converts it (a copy: ArrowBlocks keeps no Arrow buffer) and asks for the
 * next one while Trino works on the page.
 *
 * Why the fetch executor is bounded (sstable-flight.fetch-threads) and
 * cannot deadlock: its tasks never wait on a server. A task runs only once
 * its stream's next message or its end has arrived; waiting for a busy
 * server to admit the stream is a scheduled retry, not a sleep
 * (SplitStreamOpening); starting a call returns at once (gRPC connects in
 * the background). So any number of splits make progress on one thread,
 * and splits waiting for a slow or busy server hold none that a split
 * whose batch has come would need. Had tasks blocked in next(), N splits
 * waiting on slow servers would hold all N threads while a split whose
 * batches had come could not take them: its server, blocked on HTTP/2 flow
 * control, cuts such a stream after its --stream-stall-timeout (30 s), and
 * the unread data of one stream also holds the connection's window, which
 * other streams on that connection need. Each wait is bounded instead:
 * for the next message by sstable-flight.next-batch-timeout, for a busy
 * server's slot by ten minutes, and a connection that died under a wait is
 * found by gRPC's keepalive (FlightChannels). The one wait left on a fetch
 * thread is a stream that breaks the count StreamArrivals relies on (a
 * Flight server sending dictionaries or metadata-only messages, which
 * sstable-flight never does), bounded by the same timeout.
 *
 * Memory: the stream reads into an allocator of the split's own, a child
 * of the catalog's bounded by sstable-flight.split-memory-limit, so one
 * huge batch fails its query with SSTABLE_FLIGHT_MEMORY_LIMIT instead of
 * starving the catalog's other splits; getMemoryUsage is what it holds.
 *
 * Failover: while no batch has been read, the locations are tried in
 * order (SplitStreamOpening). Once a batch was returned, any failure fails
 * the query, and so does no next batch within
 * sstable-flight.next-batch-timeout: a retry elsewhere would return those
 * rows twice.
 *
 * Threads: fetch tasks and the driver thread never use the stream at once.
 * The driver touches it only once {@code pending} is done and starts the
 * next fetch after it is through with the batch; close() cancels the
 * call, waits for a running fetch to end, then closes the stream and the
 * allocator.
 */
public final class SstableFlightPageSource
        implements ConnectorPageSource
{
    private static final Logger log = Logger.get(SstableFlightPageSource.class);
    /** How long close() waits for a cancelled fetch to return before leaving its stream to the JVM. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final FlightClientPool clients;
    private final SstableFlightSplit split;
    private final List<SstableFlightColumnHandle> columns;
    private final TypeMapping typeMapping;
    private final Executor fetcher;
    private final BufferAllocator allocator;
    private final DynamicRowFilter rowFilter;

    // Written by a fetch task, read by the driver thread once `pending` is done.
    private FlightStream stream;
    private StreamArrivals arrivals;
    private URI streamLocation;
    private BoundColumns bound;
    /** Calls of next() on the stream so far or under way, the first included. */
    private long taken;
    /** The stream a fetch task opened or is opening, for close() to cancel while a fetch waits on it. */
    private volatile FlightStream current;
    private volatile boolean closed;

    /** Whether the stream's root holds a new batch; null when no fetch was started. */
    private CompletableFuture<Boolean> pending;
    /** Completes with pending, never exceptionally: what Trino waits on (the failure comes from getNextSourcePage). */
    private CompletableFuture<?> blocked = NOT_BLOCKED;
    private final AtomicLong readTimeNanos = new AtomicLong();
    private volatile long completedBytes;
    private volatile long completedPositions;
    private boolean finished;
    private boolean drained;

    public SstableFlightPageSource(FlightClientPool clients, TypeMapping typeMapping, SstableFlightSplit split, List<SstableFlightColumnHandle> columns, Executor fetcher)
    {
        this(clients, typeMapping, split, columns, fetcher, DynamicFilter.EMPTY);
    }

    /** A page source whose pages keep only the rows {@code dynamicFilter} admits as it narrows (DynamicRowFilter). */
    public SstableFlightPageSource(FlightClientPool clients, TypeMapping typeMapping, SstableFlightSplit split, List<SstableFlightColumnHandle> columns, Executor fetcher, DynamicFilter dynamicFilter)
    {
        this.rowFilter = new DynamicRowFilter(dynamicFilter, columns);
        this.clients = requireNonNull(clients, "clients is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
        this.split = requireNonNull(split, "split is null");
        this.columns = ImmutableList.copyOf(columns);
        this.fetcher = requireNonNull(fetcher, "fetcher is null");
        this.allocator = clients.newSplitAllocator("split of " + split.locations());
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        if (rowFilter.admitsNothing()) {
            // A join's build side turned out empty: nothing of this split can join. Trino's close() cancels the stream.
            finished = true;
            return null;
        }
        if (pending == null) {
            fetch(open());
        }
        if (!pending.isDone()) {
            return null;
        }
        boolean hasBatch = result(pending);
        pending = null;
        if (!hasBatch) {
            drained = true;
            finished = true;
            closeStream();
            return null;
        }
        VectorSchemaRoot root = stream.getRoot();
        // Every vector of the batch came over the wire, read or not.
        long bytes = 0;
        for (FieldVector vector : root.getFieldVectors()) {
            bytes += vector.getBufferSize();
        }
        completedBytes += bytes;
        Page page = bound.toPage(root);
        completedPositions += page.getPositionCount();
        fetch(nextBatch());
        return SourcePage.create(rowFilter.filter(page));
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        if (finished) {
            return NOT_BLOCKED;
        }
        if (pending == null) {
            fetch(open());
        }
        return pending.isDone() ? NOT_BLOCKED : blocked;
    }

    private void fetch(CompletableFuture<Boolean> step)
    {
        long start = System.nanoTime();
        // Read time: from asking to having the batch, which is the wait on the server.
        pending = step.whenComplete((_, _) -> readTimeNanos.addAndGet(System.nanoTime() - start));
        blocked = pending.handle((_, _) -> null);
    }

    /** The outcome of a finished fetch: whether a batch came, or the fetch's failure rethrown on the driver thread. */
    private static boolean result(CompletableFuture<Boolean> fetch)
    {
        try {
            return fetch.join();
        }
        catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read split: " + e.getCause(), e.getCause());
        }
    }

    /** Opens the stream on the first location that admits it (SplitStreamOpening); whether it has a first batch. */
    private CompletableFuture<Boolean> open()
    {
        SplitStreamOpening.Owner owner = new SplitStreamOpening.Owner()
        {
            @Override
            public boolean isClosed()
            {
                return closed;
            }

            @Override
            public void opening(FlightStream candidate)
            {
                current = candidate;
            }
        };
        return SplitStreamOpening.open(clients, split, allocator, fetcher, owner).thenApply(opened -> {
            stream = opened.stream();
            arrivals = opened.arrivals();
            streamLocation = opened.location();
            taken = 1;
            // A stream that ended cleanly before its schema has nothing to bind.
            if (stream.hasRoot()) {
                bound = BoundColumns.bind(stream.getRoot().getSchema().getFields(), columns, typeMapping, streamLocation.toString());
            }
            return opened.hasBatch();
        });
    }

    /**
     * Waits, holding no thread, until the stream's next message (or its
     * end) has arrived, then takes it on a fetch thread. Nothing within
     * sstable-flight.next-batch-timeout cancels the stream and fails the
     * split: rows of it went to Trino already, so it cannot move elsewhere.
     */
    private CompletableFuture<Boolean> nextBatch()
    {
        Duration timeout = clients.nextBatchTimeout();
        taken++;
        // The schema and one message per next() so far.
        return arrivals.whenArrived(1 + taken)
                .orTimeout(timeout.toMillis(), MILLISECONDS)
                .handleAsync((_, failure) -> {
                    if (failure != null) {
                        cancel(stream);
                        throw new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, ("read split from %s: no record batch within %s after %d rows (sstable-flight.next-batch-timeout): "
                                + "the server stopped sending; the stream was cancelled").formatted(streamLocation, timeout, completedPositions), failure);
                    }
                    return next();
                }, fetcher);
    }

    private boolean next()
    {
        try {
            return stream.next();
        }
        catch (FlightRuntimeException | OutOfMemoryException e) {
            if (isOverMemoryLimit(e)) {
                throw overMemoryLimit(clients, streamLocation, e);
            }
            // Rows of this split already went to Trino: reading elsewhere could repeat them.
            String code = e instanceof FlightRuntimeException flight ? flight.status().code().toString() : "";
            String reason = e instanceof FlightRuntimeException flight ? FlightErrors.describe(flight) : e.getMessage();
            throw new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, "read split from %s: the stream failed after %d rows: %s %s".formatted(streamLocation, completedPositions, code, reason), e);
        }
    }

    /** Whether a failure is Arrow refusing an allocation: gRPC reports the message it could not read, with Arrow's exception as a cause. */
    static boolean isOverMemoryLimit(Throwable e)
    {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryException) {
                return true;
            }
        }
        return false;
    }

    static TrinoException overMemoryLimit(FlightClientPool clients, URI location, Throwable e)
    {
        return new TrinoException(SSTABLE_FLIGHT_MEMORY_LIMIT, ("read split from %s: a record batch needs more Arrow memory than the split may hold (sstable-flight.split-memory-limit %s, "
                + "within sstable-flight.memory-limit): raise the limit, or lower the server's --batch-rows").formatted(location, DataSize.succinctBytes(clients.splitMemoryLimit())), e);
    }

    @Override
    public long getCompletedBytes()
    {
        return completedBytes;
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(completedPositions);
    }

    @Override
    public long getReadTimeNanos()
    {
        return readTimeNanos.get();
    }

    @Override
    public boolean isFinished()
    {
        return finished;
    }

    @Override
    public long getMemoryUsage()
    {
        // The batch being converted and those gRPC received ahead of it, all in the split's allocator.
        return closed ? 0 : allocator.getAllocatedMemory();
    }

    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        finished = true;
        FlightStream running = current;
        if (running != null && !drained) {
            cancel(running);
        }
        if (pending != null && !pending.isDone()) {
            try {
                blocked.get(CLOSE_WAIT_SECONDS, SECONDS);
            }
            catch (TimeoutException | ExecutionException e) {
                log.warn("close page source of %s: its fetch did not end within %d s after cancel; leaving its stream", split.locations(), CLOSE_WAIT_SECONDS);
                return;
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        closeStream();
        try {
            allocator.close();
        }
        catch (IllegalStateException e) {
            // Arrow memory still held after the stream closed: a leak to fix, not a reason to fail the query.
            log.error(e, "close the Arrow allocator of a split of %s", split.locations());
        }
    }

    private void closeStream()
    {
        if (stream != null) {
            if (!drained) {
                // Stop the server's work on a stream Trino no longer wants (a LIMIT, a failed query).
                cancel(stream);
            }
            Closing.quietly(stream, log, "stream of " + streamLocation);
            stream = null;
            current = null;
        }
    }

    private static void cancel(FlightStream stream)
    {
        try {
            stream.cancel("query done", null);
        }
        catch (RuntimeException e) {
            log.debug(e, "cancel stream");
        }
    }
}
