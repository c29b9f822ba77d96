package io.sstableflight.trino;

import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

import static io.airlift.units.Duration.succinctNanos;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNAVAILABLE;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;

/**
 * Opens one split's stream on the first of its locations that admits it,
 * and takes its first batch; {@link #result()} completes with the open
 * stream, or fails. No thread waits on a server meanwhile: each attempt's
 * first message is awaited through StreamArrivals, and a pause between
 * rounds is a scheduled task, not a sleep.
 *
 * The rule: a location that answers UNAVAILABLE or cannot be reached is
 * skipped, any other error fails the split (another location would read
 * the ticket no differently). A location that sends nothing within
 * sstable-flight.next-batch-timeout (a server that stopped, a connection
 * still opening to it) is cancelled and skipped too: no row of it reached
 * Trino. When none admitted the stream but one of them answered
 * UNAVAILABLE itself (its admission found every stream slot busy: Trino
 * opens as many splits at once as it has drivers, which may be more than
 * the server's --max-streams), the list is tried again after a pause,
 * growing to {@link #BUSY_PAUSE_MAX_MILLIS}, for up to ten minutes, since a
 * slot frees as soon as another split is drained. A location that could
 * not be reached at all is no reason to wait.
 */
final class SplitStreamOpening
{
    /** The page source's side: whether it was closed, and the stream being opened, for its close() to cancel. */
    interface Owner
    {
        boolean isClosed();

        void opening(FlightStream candidate);
    }

    /** The open stream: its first batch is in its root when {@code hasBatch}. */
    record Opened(FlightStream stream, StreamArrivals arrivals, URI location, boolean hasBatch) {}

    private static final Logger log = Logger.get(SplitStreamOpening.class);
    /** How long a split waits for a location that answers busy to admit its stream. */
    private static final long BUSY_WAIT_NANOS = MINUTES.toNanos(10);
    private static final long BUSY_PAUSE_MIN_MILLIS = 20;
    private static final long BUSY_PAUSE_MAX_MILLIS = 1000;

    private final FlightClientPool clients;
    private final SstableFlightSplit split;
    private final BufferAllocator allocator;
    private final Executor fetcher;
    private final Owner owner;
    private final Duration timeout;
    private final CompletableFuture<Opened> result = new CompletableFuture<>();
    private final long started = System.nanoTime();

    // Touched by one attempt at a time: each runs after the one before it ended.
    private long pause = BUSY_PAUSE_MIN_MILLIS;
    private int round = 1;
    private int index;
    private List<String> skipped = new ArrayList<>();
    private boolean answered;

    private SplitStreamOpening(FlightClientPool clients, SstableFlightSplit split, BufferAllocator allocator, Executor fetcher, Owner owner)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.split = requireNonNull(split, "split is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.fetcher = requireNonNull(fetcher, "fetcher is null");
        this.owner = requireNonNull(owner, "owner is null");
        this.timeout = clients.nextBatchTimeout();
    }

    /** Starts opening on a fetch thread. */
    static CompletableFuture<Opened> open(FlightClientPool clients, SstableFlightSplit split, BufferAllocator allocator, Executor fetcher, Owner owner)
    {
        SplitStreamOpening opening = new SplitStreamOpening(clients, split, allocator, fetcher, owner);
        fetcher.execute(opening::attempt);
        return opening.result;
    }

    private void attempt()
    {
        if (owner.isClosed()) {
            result.completeExceptionally(new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, "read split from %s: the page source was closed".formatted(split.locations())));
            return;
        }
        try {
            URI location = split.locationUris().get(index);
            StreamArrivals arrivals = new StreamArrivals();
            FlightStream candidate = clients.getStream(location, split.ticket(), allocator, arrivals);
            owner.opening(candidate);
            if (owner.isClosed()) {
                // close() ran before the owner knew this stream, so it could not cancel it.
                candidate.cancel("page source closed", null);
            }
            // NB: the call's status arrives with its first message, so a busy or unreachable
            // server shows here, before any row has reached Trino. The schema, then the first batch.
            arrivals.whenArrived(2)
                    .orTimeout(timeout.toMillis(), MILLISECONDS)
                    .whenCompleteAsync((_, failure) -> firstBatch(location, candidate, arrivals, failure), fetcher);
        }
        catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    private void firstBatch(URI location, FlightStream candidate, StreamArrivals arrivals, Throwable failure)
    {
        try {
            if (failure != null) {
                candidate.cancel("read split: gave up waiting for the first batch", null);
                discard(location, candidate);
                if (failure instanceof TimeoutException) {
                    // Nothing at all from it: no status to judge, so unreachable, not busy.
                    skip(location, "nothing within %s (sstable-flight.next-batch-timeout)".formatted(timeout));
                }
                else {
                    result.completeExceptionally(failure);
                }
                return;
            }
            boolean hasBatch = candidate.next();
            result.complete(new Opened(candidate, arrivals, location, hasBatch));
        }
        catch (FlightRuntimeException | OutOfMemoryException e) {
            discard(location, candidate);
            if (owner.isClosed()) {
                result.completeExceptionally(new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, "read split from %s: the page source was closed".formatted(location), e));
                return;
            }
            if (SstableFlightPageSource.isOverMemoryLimit(e)) {
                result.completeExceptionally(SstableFlightPageSource.overMemoryLimit(clients, location, e));
                return;
            }
            FlightRuntimeException flight = (FlightRuntimeException) e;
            if (!FlightClientPool.isUnavailable(flight)) {
                result.completeExceptionally(new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read split from %s: %s %s".formatted(location, flight.status().code(), FlightErrors.describe(flight)), e));
                return;
            }
            answered |= arrivals.serverAnswered();
            // describe: a failed TLS handshake says only "ssl exception" in its message.
            skip(location, FlightErrors.describe(flight));
        }
        catch (RuntimeException e) {
            discard(location, candidate);
            result.completeExceptionally(e);
        }
    }

    private void discard(URI location, FlightStream candidate)
    {
        owner.opening(null);
        Closing.quietly(candidate, log, "stream of " + location);
    }

    /** Moves past a location that did not admit the stream: to the next, to another round after a pause, or to failure. */
    private void skip(URI location, String reason)
    {
        skipped.add(location + " (" + reason + ")");
        List<URI> locations = split.locationUris();
        if (index + 1 < locations.size()) {
            log.warn("read split: %s is unavailable (%s), trying %s", location, reason, locations.get(index + 1));
            index++;
            attempt();
            return;
        }
        if (!answered || owner.isClosed() || System.nanoTime() + MILLISECONDS.toNanos(pause) - started > BUSY_WAIT_NANOS) {
            String waited = round > 1 ? " (%d rounds over %s while busy)".formatted(round, succinctNanos(System.nanoTime() - started)) : "";
            result.completeExceptionally(new TrinoException(SSTABLE_FLIGHT_UNAVAILABLE, "read split: no location answered%s: %s".formatted(waited, String.join("; ", skipped))));
            return;
        }
        if (round == 1) {
            log.debug("read split: every location is busy (%s); asking again", String.join("; ", skipped));
        }
        // Busy: ask again once the pause is over, holding no thread meanwhile.
        long wait = pause;
        pause = Math.min(2 * pause, BUSY_PAUSE_MAX_MILLIS);
        round++;
        index = 0;
        skipped = new ArrayList<>();
        answered = false;
        CompletableFuture.delayedExecutor(wait, MILLISECONDS, fetcher).execute(this::attempt);
    }
}
