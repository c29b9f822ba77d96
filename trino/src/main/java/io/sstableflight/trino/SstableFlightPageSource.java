package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.airlift.units.DataSize;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_MEMORY_LIMIT;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNAVAILABLE;
import static java.util.Objects.requireNonNull;
import static io.airlift.units.Duration.succinctNanos;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Reads one split's DoGet stream and hands Trino one page per record batch.
 *
 * Fetching ahead: Trino's driver thread never waits on the network.
 * Opening the stream and taking each next batch run on the connector's
 * fetch executor; until one is ready, getNextSourcePage returns null and
 * isBlocked a future that completes when it is. Once a batch is converted
 * (a copy: ArrowBlocks keeps no Arrow buffer), the next one is fetched
 * while Trino works on the page, and gRPC buffers the messages beyond it
 * (Flight asks for a few ahead).
 *
 * Memory: the stream reads into an allocator of the split's own, a child
 * of the catalog's bounded by sstable-flight.split-memory-limit, so one
 * huge batch fails its query with SSTABLE_FLIGHT_MEMORY_LIMIT instead of
 * starving the catalog's other splits; getMemoryUsage is what it holds.
 *
 * Failover: the locations are tried in order while no batch has been read;
 * a location that answers UNAVAILABLE or cannot be reached is skipped. When
 * none admitted the stream but one answered (busy: every stream slot of the
 * server taken by this query's other splits, say), the list is asked again
 * after a growing pause, for up to ten minutes, since a slot frees as soon as
 * another split is drained.
 * Once a batch was returned, any failure fails the query: a retry elsewhere
 * would return those rows twice.
 *
 * Threads: the fetch task and the driver thread never use the stream at
 * once. The driver touches it only once {@code pending} is done and starts
 * the next fetch after it is through with the batch; close() cancels the
 * call, waits for a running fetch to end, then closes the stream and the
 * allocator.
 */
public final class SstableFlightPageSource
        implements ConnectorPageSource
{
    private static final Logger log = Logger.get(SstableFlightPageSource.class);
    /** How long close() waits for a cancelled fetch to return before leaving its stream to the JVM. */
    private static final long CLOSE_WAIT_SECONDS = 10;
    /** How long a split waits for a location that answers busy to admit its stream. */
    private static final long BUSY_WAIT_NANOS = MINUTES.toNanos(10);
    private static final long BUSY_PAUSE_MIN_MILLIS = 20;
    private static final long BUSY_PAUSE_MAX_MILLIS = 1000;

    private final FlightClientPool clients;
    private final SstableFlightSplit split;
    private final List<SstableFlightColumnHandle> columns;
    private final TypeMapping typeMapping;
    private final Executor fetcher;
    private final BufferAllocator allocator;

    // Written by the fetch task, read by the driver thread once `pending` is done.
    private FlightStream stream;
    private URI streamLocation;
    private BoundColumns bound;
    /** The stream the fetch task opened or is opening, for close() to cancel while a fetch waits on it. */
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
        if (pending == null) {
            fetch(this::open);
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
        fetch(this::next);
        return SourcePage.create(page);
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        if (finished) {
            return NOT_BLOCKED;
        }
        if (pending == null) {
            fetch(this::open);
        }
        return pending.isDone() ? NOT_BLOCKED : blocked;
    }

    private void fetch(BooleanSupplier step)
    {
        pending = CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            try {
                return step.getAsBoolean();
            }
            finally {
                readTimeNanos.addAndGet(System.nanoTime() - start);
            }
        }, fetcher);
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

    /**
     * Opens the stream on the first location that admits it and returns
     * whether it has a first batch. A location that answered UNAVAILABLE
     * itself (its admission found every stream slot busy, or it is
     * draining) will admit the stream once a slot frees: Trino opens as many
     * splits at once as it has drivers, which may be more than the server's
     * --max-streams. So when no location admitted the stream but one of
     * them answered, the list is tried again after a pause, growing to
     * BUSY_PAUSE_MAX_MILLIS, for up to BUSY_WAIT_NANOS; a location that could
     * not be reached at all is no reason to wait.
     */
    private boolean open()
    {
        long deadline = System.nanoTime() + BUSY_WAIT_NANOS;
        long pause = BUSY_PAUSE_MIN_MILLIS;
        for (int round = 1; ; round++) {
            List<String> skipped = new ArrayList<>();
            boolean[] answered = new boolean[1];
            Boolean hasBatch = openOnce(skipped, answered);
            if (hasBatch != null) {
                return hasBatch;
            }
            if (!answered[0] || closed || System.nanoTime() + MILLISECONDS.toNanos(pause) > deadline) {
                String waited = round > 1 ? " (%d rounds over %s while busy)".formatted(round, succinctNanos(System.nanoTime() - deadline + BUSY_WAIT_NANOS)) : "";
                throw new TrinoException(SSTABLE_FLIGHT_UNAVAILABLE, "read split: no location answered%s: %s".formatted(waited, String.join("; ", skipped)));
            }
            if (round == 1) {
                log.debug("read split: every location is busy (%s); asking again", String.join("; ", skipped));
            }
            try {
                Thread.sleep(pause);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TrinoException(SSTABLE_FLIGHT_UNAVAILABLE, "read split: interrupted while every location was busy: " + String.join("; ", skipped), e);
            }
            pause = Math.min(2 * pause, BUSY_PAUSE_MAX_MILLIS);
        }
    }

    /**
     * One pass over the locations: whether the first that admits the stream
     * has a first batch, or null when none did (each then named in
     * {@code skipped}, and {@code answered[0]} set if one of them answered
     * UNAVAILABLE itself rather than being unreachable).
     */
    private Boolean openOnce(List<String> skipped, boolean[] answered)
    {
        List<URI> locations = split.locationUris();
        for (int i = 0; i < locations.size(); i++) {
            URI location = locations.get(i);
            FlightStream candidate = null;
            try {
                candidate = clients.getStream(location, split.ticket(), allocator);
                current = candidate;
                if (closed) {
                    // close() ran before current was set, so it could not cancel this call.
                    candidate.cancel("page source closed", null);
                }
                // NB: the call's status arrives with the first message, so an unreachable or
                // busy server shows here, before any row has reached Trino.
                boolean hasBatch = candidate.next();
                stream = candidate;
                streamLocation = location;
                bound = BoundColumns.bind(candidate.getRoot().getSchema().getFields(), columns, typeMapping, location.toString());
                return hasBatch;
            }
            catch (FlightRuntimeException | OutOfMemoryException e) {
                current = null;
                Closing.quietly(candidate, log, "stream of " + location);
                if (closed) {
                    throw new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, "read split from %s: the page source was closed".formatted(location), e);
                }
                if (isOverMemoryLimit(e)) {
                    throw overMemoryLimit(location, e);
                }
                FlightRuntimeException flight = (FlightRuntimeException) e;
                if (!FlightClientPool.isUnavailable(flight)) {
                    throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read split from %s: %s %s".formatted(location, flight.status().code(), FlightErrors.describe(flight)), e);
                }
                // A status the server sent has no local cause; one gRPC made up for a
                // connection it could not open or lost carries the I/O error.
                answered[0] |= flight.status().cause() == null;
                // describe: a failed TLS handshake says only "ssl exception" in its message.
                String reason = FlightErrors.describe(flight);
                skipped.add(location + " (" + reason + ")");
                if (i + 1 < locations.size()) {
                    log.warn("read split: %s is unavailable (%s), trying %s", location, reason, locations.get(i + 1));
                }
            }
        }
        return null;
    }

    private boolean next()
    {
        try {
            return stream.next();
        }
        catch (FlightRuntimeException | OutOfMemoryException e) {
            if (isOverMemoryLimit(e)) {
                throw overMemoryLimit(streamLocation, e);
            }
            // Rows of this split already went to Trino: reading elsewhere could repeat them.
            String code = e instanceof FlightRuntimeException flight ? flight.status().code().toString() : "";
            String reason = e instanceof FlightRuntimeException flight ? FlightErrors.describe(flight) : e.getMessage();
            throw new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, "read split from %s: the stream failed after %d rows: %s %s".formatted(streamLocation, completedPositions, code, reason), e);
        }
    }

    /** Whether a failure is Arrow refusing an allocation: gRPC reports the message it could not read, with Arrow's exception as a cause. */
    private static boolean isOverMemoryLimit(Throwable e)
    {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryException) {
                return true;
            }
        }
        return false;
    }

    private TrinoException overMemoryLimit(URI location, Throwable e)
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
