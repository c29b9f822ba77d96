package io.sstableflight.trino;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_CONFIG;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNAVAILABLE;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * The calls of a catalog on this node to its servers, over channels all its
 * queries share (FlightChannels: a few per server, with keepalive), and
 * the options every RPC carries (bearer token, deadlines). Metadata and
 * planning RPCs go to the seeds in order: a seed
 * that is UNAVAILABLE or unreachable is skipped, any other error fails the
 * call, since another seed would answer the same.
 *
 * Memory: the catalog's Arrow allocator is bounded by
 * sstable-flight.memory-limit, and each split reads into a child of it
 * bounded by sstable-flight.split-memory-limit. NB: Arrow Flight
 * allocates a stream's incoming messages from its client's allocator, so
 * a split's stream is opened through a client of its own over the shared
 * channel (FlightGrpcUtils.createFlightClientWithSharedChannel), which
 * costs a few objects, not a connection.
 *
 * Streams have no deadline (a scan takes as long as it takes); a split
 * bounds its wait for each next record batch instead
 * (sstable-flight.next-batch-timeout, {@link #nextBatchTimeout()}).
 */
public final class FlightClientPool
        implements AutoCloseable
{
    private static final Logger log = Logger.get(FlightClientPool.class);

    private final List<URI> seeds;
    private final BufferAllocator allocator;
    private final Optional<String> token;
    private final long rpcTimeoutMillis;
    private final long splitMemoryLimit;
    private final Duration nextBatchTimeout;
    private final FlightChannels channels;
    private final Map<URI, FlightClient> clients = new ConcurrentHashMap<>();

    @Inject
    public FlightClientPool(SstableFlightConfig config)
    {
        requireNonNull(config, "config is null");
        this.seeds = config.getSeeds();
        this.token = readToken(config);
        this.rpcTimeoutMillis = config.getRpcTimeout().toMillis();
        this.nextBatchTimeout = config.getNextBatchTimeout();
        this.allocator = new RootAllocator(config.getMemoryLimit().toBytes());
        this.splitMemoryLimit = config.getSplitMemoryLimit().toBytes();
        this.channels = new FlightChannels(allocator, config.getChannelsPerServer(), config.getKeepaliveTime(), config.getKeepaliveTimeout(),
                config.getTlsCaFile().map(FlightClientPool::readFile),
                config.getTlsCertFile().map(FlightClientPool::readFile),
                config.getTlsKeyFile().map(FlightClientPool::readFile));
    }

    /** The seed servers, in configuration order. */
    public List<URI> seeds()
    {
        return seeds;
    }

    /** The catalog's allocator, bounded by sstable-flight.memory-limit: every split's is a child of it. */
    public BufferAllocator allocator()
    {
        return allocator;
    }

    /** A new allocator for one split's stream, bounded by sstable-flight.split-memory-limit; the caller closes it. */
    public BufferAllocator newSplitAllocator(String name)
    {
        return allocator.newChildAllocator(name, 0, splitMemoryLimit);
    }

    /** The bound of each split's allocator, for error messages. */
    public long splitMemoryLimit()
    {
        return splitMemoryLimit;
    }

    /** How long a split waits for its stream's next message (sstable-flight.next-batch-timeout). */
    public Duration nextBatchTimeout()
    {
        return nextBatchTimeout;
    }

    /** Every table the first answering seed serves. */
    public List<FlightInfo> listFlights()
    {
        return onSeeds("list tables (ListFlights)", client -> {
            List<FlightInfo> infos = new ArrayList<>();
            client.listFlights(Criteria.ALL, metadataOptions()).forEach(infos::add);
            return infos;
        }).value();
    }

    /** Plans a command on the first answering seed; the result names that seed, which serves endpoints without a location. */
    public Planned<FlightInfo> getFlightInfo(byte[] command)
    {
        return onSeeds("plan (GetFlightInfo)", client -> client.getInfo(FlightDescriptor.command(command), metadataOptions()));
    }

    /** Runs an action on the first answering seed and returns its one result's body (table-stats, docs/flight-api.md). */
    public byte[] doAction(String type, byte[] body)
    {
        return doAction(type, body, rpcTimeoutMillis);
    }

    /** {@link #doAction(String, byte[])} with a deadline of its own. */
    public byte[] doAction(String type, byte[] body, long timeoutMillis)
    {
        return onSeeds("action " + type + " (DoAction)", client -> {
            Iterator<Result> results = client.doAction(new Action(type, body), metadataOptions(timeoutMillis));
            if (!results.hasNext()) {
                throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "action %s: the server returned no result".formatted(type));
            }
            byte[] result = results.next().getBody();
            // Drain the call, so that its stream is complete rather than cancelled.
            results.forEachRemaining(_ -> {});
            return result;
        }).value();
    }

    /**
     * Opens a stream of a ticket on one location, on the location's next
     * channel in turn, reading into the split's allocator; errors surface on
     * the stream's first {@code next()}, and {@code arrivals} tells when a
     * next() would not wait. Returns at once: gRPC connects in the
     * background.
     */
    FlightStream getStream(URI location, byte[] ticket, BufferAllocator splitAllocator, StreamArrivals arrivals)
    {
        // NB: never closed: FlightClient.close would close the split's allocator, which the
        // page source closes once its stream is closed, and the shared channel, which is ours.
        FlightClient client = FlightGrpcUtils.createFlightClientWithSharedChannel(splitAllocator, channels.forStream(location));
        return client.getStream(new Ticket(ticket), Stream.concat(Stream.of(streamOptions()), Stream.of(arrivals)).toArray(CallOption[]::new));
    }

    public record Planned<T>(T value, URI server) {}

    private <T> Planned<T> onSeeds(String action, Function<FlightClient, T> call)
    {
        FlightRuntimeException last = null;
        for (URI seed : seeds) {
            try {
                return new Planned<>(call.apply(client(seed)), seed);
            }
            catch (FlightRuntimeException e) {
                if (!isUnavailable(e)) {
                    throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "%s on %s: %s %s".formatted(action, seed, e.status().code(), FlightErrors.describe(e)), e);
                }
                log.warn("%s: seed %s is unavailable (%s), trying the next", action, seed, FlightErrors.describe(e));
                last = e;
            }
        }
        throw new TrinoException(SSTABLE_FLIGHT_UNAVAILABLE, "%s: no seed server answered (%s): %s".formatted(action, seeds, last == null ? "none configured" : FlightErrors.describe(last)), last);
    }

    /** Whether another location may answer: the server was busy, draining or not reachable at all. */
    static boolean isUnavailable(FlightRuntimeException e)
    {
        return e.status().code() == FlightStatusCode.UNAVAILABLE;
    }

    /** The metadata client of a location, over its first channel, reading into the catalog's allocator. */
    private FlightClient client(URI location)
    {
        return clients.computeIfAbsent(location, uri -> FlightGrpcUtils.createFlightClientWithSharedChannel(allocator, channels.forMetadata(uri)));
    }

    private CallOption[] metadataOptions()
    {
        return metadataOptions(rpcTimeoutMillis);
    }

    private CallOption[] metadataOptions(long timeoutMillis)
    {
        CallOption timeout = CallOptions.timeout(timeoutMillis, MILLISECONDS);
        return token.map(t -> new CallOption[] {timeout, bearer(t)}).orElseGet(() -> new CallOption[] {timeout});
    }

    private CallOption[] streamOptions()
    {
        return token.map(t -> new CallOption[] {bearer(t)}).orElseGet(() -> new CallOption[0]);
    }

    private static CallOption bearer(String token)
    {
        return new CredentialCallOption(new BearerCredentialWriter(token));
    }

    private static Optional<String> readToken(SstableFlightConfig config)
    {
        if (config.getToken().isPresent()) {
            return Optional.of(requireToken(config.getToken().get().strip(), "sstable-flight.token"));
        }
        return config.getTokenFile().map(file -> requireToken(new String(readFile(file), java.nio.charset.StandardCharsets.UTF_8).strip(), "sstable-flight.token-file " + file));
    }

    private static String requireToken(String token, String source)
    {
        // An empty token must never mean "no authentication": the server would answer UNAUTHENTICATED
        // to every query, far from the mistake.
        if (token.isEmpty()) {
            throw new TrinoException(SSTABLE_FLIGHT_CONFIG, source + ": holds no token");
        }
        return token;
    }

    private static byte[] readFile(String file)
    {
        try {
            return Files.readAllBytes(Path.of(file));
        }
        catch (IOException e) {
            throw new UncheckedIOException("read " + file, e);
        }
    }

    @Override
    public void close()
    {
        // The metadata clients hold nothing of their own: their channels and allocator close here.
        clients.clear();
        channels.close();
        allocator.close();
    }
}
