package io.sstableflight.trino;

import io.trino.spi.TrinoException;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The page source's failover rule against Arrow Flight servers run in this
 * JVM, each streaming a few batches of one int column and then ending or
 * failing as told: a location that fails before its first batch is skipped
 * when it says UNAVAILABLE; once a batch reached Trino, a failure fails the
 * split and the next location is never asked (its rows would repeat
 * those already read). The servers are real gRPC servers on loopback ports;
 * only what they stream is scripted, which a live sstable-flight cannot be
 * made to do at a chosen batch (its corpus streams fit in gRPC's buffers).
 */
class TestPageSourceFailover
{
    private static final Schema SCHEMA = new Schema(List.of(new Field("v",
            new FieldType(true, new ArrowType.Int(32, true), null, Map.of(TypeMapping.CQL_TYPE, "int", TypeMapping.CQL_KIND, "regular")), null)));
    private static final SstableFlightColumnHandle V = new SstableFlightColumnHandle("v", "int", "regular", INTEGER, java.util.Optional.empty());

    private BufferAllocator allocator;
    private final List<FlightServer> servers = new ArrayList<>();
    private final List<Integer> calls = new ArrayList<>();
    private FlightClientPool clients;

    @BeforeEach
    void setUp()
    {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown()
            throws InterruptedException
    {
        if (clients != null) {
            clients.close();
        }
        for (FlightServer server : servers) {
            server.close();
        }
        allocator.close();
    }

    /** A server that streams {@code batches} batches of 2 rows, then fails with {@code failure} (or ends when null). */
    private String server(int id, int batches, CallStatus failure)
            throws Exception
    {
        NoOpFlightProducer producer = new NoOpFlightProducer()
        {
            @Override
            public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener)
            {
                synchronized (calls) {
                    calls.add(id);
                }
                try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
                    listener.start(root);
                    IntVector v = (IntVector) root.getVector(0);
                    for (int b = 0; b < batches; b++) {
                        v.allocateNew(2);
                        v.set(0, id * 100 + 2 * b);
                        v.set(1, id * 100 + 2 * b + 1);
                        root.setRowCount(2);
                        listener.putNext();
                    }
                    if (failure == null) {
                        listener.completed();
                    }
                    else {
                        listener.error(failure.toRuntimeException());
                    }
                }
            }
        };
        FlightServer server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer).build().start();
        servers.add(server);
        return "grpc://127.0.0.1:" + server.getPort();
    }

    private List<Integer> read(String... locations)
    {
        clients = new FlightClientPool(new SstableFlightConfig().setUri(locations[0]));
        SstableFlightSplit split = new SstableFlightSplit(new byte[] {1}, List.of(locations));
        List<Integer> values = new ArrayList<>();
        try (SstableFlightPageSource source = new SstableFlightPageSource(clients, new TypeMapping(VARCHAR, new TypeOperators()), split, List.of(V))) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page != null) {
                    for (int i = 0; i < page.getPositionCount(); i++) {
                        values.add(INTEGER.getInt(page.getBlock(0), i));
                    }
                }
            }
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
}
