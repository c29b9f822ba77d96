package io.sstableflight.trino;

import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A Flight server in the test's JVM that plays the metadata side of an
 * sstable-flight: a listing the test scripts (ListFlights), table-stats
 * the test scripts (DoAction), and plans of one endpoint (GetFlightInfo),
 * each call counted and each planned command kept, so a test sees what
 * the connector asked and how often.
 */
final class CatalogFlightServer
        implements AutoCloseable
{
    private final BufferAllocator allocator = new RootAllocator();
    private final Map<String, FlightInfo> listing = new LinkedHashMap<>();
    private final FlightServer server;
    /** ListFlights calls so far. */
    final AtomicInteger listings = new AtomicInteger();
    /** table-stats calls so far. */
    final AtomicInteger statsCalls = new AtomicInteger();
    /** Fails the next ListFlights with UNAVAILABLE. */
    final AtomicBoolean failNextListing = new AtomicBoolean();
    /** The commands GetFlightInfo was asked to plan, as text. */
    final List<String> planned = new CopyOnWriteArrayList<>();
    /** The body of the n-th table-stats answer (from 1); throwing fails the call with INTERNAL. */
    volatile IntFunction<String> stats = _ -> "{\"partitions_estimate\":10,\"rows_estimate\":100}";

    CatalogFlightServer()
            throws IOException
    {
        server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), new NoOpFlightProducer()
        {
            @Override
            public void listFlights(CallContext context, Criteria criteria, StreamListener<FlightInfo> listener)
            {
                listings.incrementAndGet();
                if (failNextListing.getAndSet(false)) {
                    listener.onError(CallStatus.UNAVAILABLE.withDescription("scripted: not now").toRuntimeException());
                    return;
                }
                tables().forEach(listener::onNext);
                listener.onCompleted();
            }

            @Override
            public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor)
            {
                planned.add(new String(descriptor.getCommand(), UTF_8));
                return new FlightInfo(new Schema(List.of()), descriptor, List.of(new FlightEndpoint(new Ticket(new byte[] {1}))), -1, 10);
            }

            @Override
            public void doAction(CallContext context, Action action, StreamListener<Result> listener)
            {
                try {
                    listener.onNext(new Result(stats.apply(statsCalls.incrementAndGet()).getBytes(UTF_8)));
                    listener.onCompleted();
                }
                catch (RuntimeException e) {
                    listener.onError(CallStatus.INTERNAL.withDescription("scripted: " + e.getMessage()).toRuntimeException());
                }
            }
        }).build().start();
    }

    /** The server's address, for sstable-flight.uri. */
    String uri()
    {
        return "grpc://127.0.0.1:" + server.getPort();
    }

    /** Lists (or lists anew) keyspace.table with this schema; {@code appMetadata} is its plan's (null: a lone server's). */
    void serve(String keyspace, String table, Schema schema, byte[] appMetadata)
    {
        FlightInfo info = FlightInfo.builder(schema, FlightDescriptor.path(keyspace, table), List.of())
                .setRecords(-1)
                .setAppMetadata(appMetadata)
                .build();
        synchronized (listing) {
            listing.put(keyspace + "/" + table, info);
        }
    }

    void serve(String keyspace, String table, Schema schema)
    {
        serve(keyspace, table, schema, null);
    }

    /** Lists keyspace.table no more, as after DROP TABLE. */
    void drop(String keyspace, String table)
    {
        synchronized (listing) {
            listing.remove(keyspace + "/" + table);
        }
    }

    private List<FlightInfo> tables()
    {
        synchronized (listing) {
            return new ArrayList<>(listing.values());
        }
    }

    @Override
    public void close()
            throws InterruptedException
    {
        server.close();
        allocator.close();
    }
}
