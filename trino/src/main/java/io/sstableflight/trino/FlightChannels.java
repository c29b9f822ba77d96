package io.sstableflight.trino;

import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.grpc.ManagedChannel;
import org.apache.arrow.flight.grpc.NettyClientBuilder;
import org.apache.arrow.memory.BufferAllocator;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The gRPC channels (each one HTTP/2 connection once used) of a catalog to
 * its servers: sstable-flight.channels-per-server of them per server, made
 * on first use. Split streams take them in turn, so that a wide scan is not
 * capped by one connection (its flow-control window, and the server's one
 * writer per connection); metadata calls take the first.
 *
 * Keepalive: a connection with no bytes from its server for
 * sstable-flight.keepalive-time (30 s) is pinged, with or without calls,
 * and closed when the ping is not answered within
 * sstable-flight.keepalive-timeout (10 s); its calls then fail with
 * UNAVAILABLE ("Keepalive failed"). So a half-open connection (a server
 * whose host vanished, a stopped process, a dropped NAT entry) fails a
 * split within about 40 s, with or without a stream on it, rather than
 * leaving it waiting forever. sstable-flight permits a ping every 10 s,
 * also with no stream (flightserver/limits.go; a client pinging more often
 * is sent GOAWAY), so the time is at least 10 s (SstableFlightConfig); 30 s
 * keeps three times clear of it.
 */
final class FlightChannels
        implements AutoCloseable
{
    private static final Logger log = Logger.get(FlightChannels.class);

    private final BufferAllocator allocator;
    private final int perServer;
    private final long keepaliveTimeMillis;
    private final long keepaliveTimeoutMillis;
    private final Optional<byte[]> trustedCertificates;
    private final Optional<byte[]> clientCertificate;
    private final Optional<byte[]> clientKey;
    private final Map<URI, Server> servers = new ConcurrentHashMap<>();

    FlightChannels(BufferAllocator allocator, int perServer, Duration keepaliveTime, Duration keepaliveTimeout, Optional<byte[]> trustedCertificates, Optional<byte[]> clientCertificate, Optional<byte[]> clientKey)
    {
        checkArgument(perServer >= 1, "perServer must be at least 1");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.perServer = perServer;
        this.keepaliveTimeMillis = keepaliveTime.toMillis();
        this.keepaliveTimeoutMillis = keepaliveTimeout.toMillis();
        this.trustedCertificates = requireNonNull(trustedCertificates, "trustedCertificates is null");
        this.clientCertificate = requireNonNull(clientCertificate, "clientCertificate is null");
        this.clientKey = requireNonNull(clientKey, "clientKey is null");
    }

    /** The channel of a server's metadata calls: its first. */
    ManagedChannel forMetadata(URI location)
    {
        return server(location).channels.getFirst();
    }

    /** The server's next channel in turn, for one stream. */
    ManagedChannel forStream(URI location)
    {
        Server server = server(location);
        return server.channels.get(Math.floorMod(server.next.getAndIncrement(), server.channels.size()));
    }

    private Server server(URI location)
    {
        return servers.computeIfAbsent(location, this::newServer);
    }

    private Server newServer(URI location)
    {
        // Channels connect on their first call, so the ones a catalog never uses cost no connection.
        List<ManagedChannel> channels = new ArrayList<>(perServer);
        for (int i = 0; i < perServer; i++) {
            channels.add(newChannel(location));
        }
        return new Server(List.copyOf(channels), new AtomicInteger());
    }

    private ManagedChannel newChannel(URI uri)
    {
        // Arrow's own channel builder, as FlightClient.builder uses: plaintext or TLS, no message size limit.
        NettyClientBuilder builder = new NettyClientBuilder(allocator, FlightLocations.toLocation(uri));
        if (FlightLocations.isTls(uri)) {
            builder.useTls();
            trustedCertificates.ifPresent(pem -> builder.trustedCertificates(new ByteArrayInputStream(pem)));
            if (clientCertificate.isPresent() && clientKey.isPresent()) {
                builder.clientCertificate(new ByteArrayInputStream(clientCertificate.get()), new ByteArrayInputStream(clientKey.get()));
            }
        }
        return builder.build()
                .keepAliveTime(keepaliveTimeMillis, MILLISECONDS)
                .keepAliveTimeout(keepaliveTimeoutMillis, MILLISECONDS)
                .keepAliveWithoutCalls(true)
                .build();
    }

    @Override
    public void close()
    {
        List<Map.Entry<URI, ManagedChannel>> all = new ArrayList<>();
        servers.forEach((uri, server) -> server.channels.forEach(channel -> all.add(Map.entry(uri, channel))));
        servers.clear();
        all.forEach(channel -> channel.getValue().shutdownNow());
        for (Map.Entry<URI, ManagedChannel> channel : all) {
            try {
                if (!channel.getValue().awaitTermination(5, SECONDS)) {
                    log.warn("close channel of %s: still open after 5 s", channel.getKey());
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private record Server(List<ManagedChannel> channels, AtomicInteger next) {}
}
