package io.sstableflight.trino;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.NettyServerBuilder;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import static io.trino.spi.type.IntegerType.INTEGER;

/**
 * Arrow Flight servers in the test's JVM, on loopback ports, whose DoGet
 * streams one int column as a script says: real gRPC servers, so the page
 * source reads them as it reads sstable-flight, but streams that can be
 * held, failed or made huge at a chosen batch, which a live sstable-flight
 * cannot be made to do (its corpus streams fit in gRPC's buffers).
 */
final class ScriptedFlightServers
        implements AutoCloseable
{
    static final Schema SCHEMA = new Schema(List.of(new Field("v",
            new FieldType(true, new ArrowType.Int(32, true), null, Map.of(TypeMapping.CQL_TYPE, "int", TypeMapping.CQL_KIND, "regular")), null)));
    static final SstableFlightColumnHandle V = new SstableFlightColumnHandle("v", "int", "regular", INTEGER, Optional.empty());

    /** What one DoGet sends: start the listener on the root, fill and put batches, then end or fail. */
    interface Script
    {
        void stream(ServerStreamListener listener, VectorSchemaRoot root)
                throws Exception;
    }

    /** The servers' own memory, apart from the page source's under test. */
    private final BufferAllocator allocator = new RootAllocator();
    private final List<FlightServer> servers = new ArrayList<>();
    /** DoGets still running their script: the allocator closes only once they have freed their roots. */
    private final java.util.concurrent.Phaser streams = new java.util.concurrent.Phaser(1);
    /** The client addresses (one per connection) the servers' calls came from. */
    private final Set<SocketAddress> peers = ConcurrentHashMap.newKeySet();
    private final ServerInterceptor recordPeer = new ServerInterceptor()
    {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next)
        {
            SocketAddress peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            if (peer != null) {
                peers.add(peer);
            }
            return next.startCall(call, headers);
        }
    };

    /** Starts a server that answers every DoGet with the script; returns its grpc:// location. */
    String start(Script script)
            throws Exception
    {
        NoOpFlightProducer producer = new NoOpFlightProducer()
        {
            @Override
            public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener)
            {
                streams.register();
                try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
                    script.stream(listener, root);
                }
                catch (Exception e) {
                    listener.error(e);
                }
                finally {
                    streams.arriveAndDeregister();
                }
            }
        };
        FlightServer server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer)
                .transportHint("grpc.builderConsumer", (Consumer<NettyServerBuilder>) builder -> builder.intercept(recordPeer))
                .build()
                .start();
        servers.add(server);
        return "grpc://127.0.0.1:" + server.getPort();
    }

    /** The client connections the servers were called on so far, by their address. */
    Set<SocketAddress> peers()
    {
        return Set.copyOf(peers);
    }

    /** Fills the root with {@code rows} values from {@code first} on and sends it as one batch. */
    static void putBatch(ServerStreamListener listener, VectorSchemaRoot root, int first, int rows)
    {
        org.apache.arrow.vector.IntVector v = (org.apache.arrow.vector.IntVector) root.getVector(0);
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            v.set(i, first + i);
        }
        root.setRowCount(rows);
        listener.putNext();
    }

    @Override
    public void close()
            throws InterruptedException
    {
        for (FlightServer server : servers) {
            server.close();
        }
        servers.clear();
        // NB: a script the client stopped waiting for (a test's held
        // stream, released at its end) may still be finishing on the
        // server's thread, its root not yet freed: closing the allocator
        // before it ends reported a leak of the servers' own memory.
        try {
            streams.awaitAdvanceInterruptibly(streams.arrive(), 10, java.util.concurrent.TimeUnit.SECONDS);
        }
        catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("a scripted DoGet did not end within 10 s of the test", e);
        }
        allocator.close();
    }
}
