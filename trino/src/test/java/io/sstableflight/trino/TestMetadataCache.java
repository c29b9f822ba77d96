package io.sstableflight.trino;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Result;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The catalog's metadata cache against a Flight server in the test's JVM
 * that counts its ListFlights and table-stats calls: a listing and stats
 * are asked for once per TTL, a name the kept listing lacks is looked up
 * again at once (once per transaction), a failed call is not kept, and a
 * TTL of 0s asks every time. The clock is the cache's ticker, moved by
 * the test.
 */
class TestMetadataCache
{
    // The calls under test read no session property.
    private static final ConnectorSession SESSION = null;

    private final BufferAllocator allocator = new RootAllocator();
    private final List<String> tables = new CopyOnWriteArrayList<>(List.of("a"));
    private final AtomicInteger listings = new AtomicInteger();
    private final AtomicInteger statsCalls = new AtomicInteger();
    private final AtomicBoolean failNextListing = new AtomicBoolean();
    private final AtomicLong nanos = new AtomicLong();
    private final Ticker ticker = new Ticker()
    {
        @Override
        public long read()
        {
            return nanos.get();
        }
    };
    private FlightServer server;
    private FlightClientPool clients;

    @BeforeEach
    void start()
            throws Exception
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
                for (String table : tables) {
                    listener.onNext(new FlightInfo(ScriptedFlightServers.SCHEMA, FlightDescriptor.path("ks", table), List.of(), -1, -1));
                }
                listener.onCompleted();
            }

            @Override
            public void doAction(CallContext context, Action action, StreamListener<Result> listener)
            {
                int n = statsCalls.incrementAndGet();
                listener.onNext(new Result("{\"partitions_estimate\":%d,\"rows_estimate\":%d}".formatted(n, 10 * n).getBytes(UTF_8)));
                listener.onCompleted();
            }
        }).build().start();
        clients = new FlightClientPool(new SstableFlightConfig().setUri("grpc://127.0.0.1:" + server.getPort()));
    }

    @AfterEach
    void stop()
            throws Exception
    {
        clients.close();
        server.close();
        allocator.close();
    }

    private MetadataCache cache(int ttlSeconds)
    {
        return new MetadataCache(clients, new Duration(ttlSeconds, SECONDS), new Duration(30, SECONDS), ticker);
    }

    private static SstableFlightMetadata metadata(MetadataCache cache)
    {
        return new SstableFlightMetadata(cache, new TypeMapping(VARCHAR, new TypeOperators()));
    }

    @Test
    void aListingAndStatsAreAskedForOncePerTtl()
    {
        MetadataCache cache = cache(10);
        SstableFlightTableHandle a = SstableFlightTableHandle.of("ks", "a");
        for (int query = 0; query < 3; query++) {
            assertThat(metadata(cache).getTableHandle(SESSION, new SchemaTableName("ks", "a"), Optional.empty(), Optional.empty())).isEqualTo(a);
            assertThat(metadata(cache).getTableStatistics(SESSION, a).getRowCount().getValue()).isEqualTo(10);
        }
        assertThat(listings).hasValue(1);
        assertThat(statsCalls).hasValue(1);

        nanos.addAndGet(SECONDS.toNanos(11));
        assertThat(metadata(cache).getTableStatistics(SESSION, a).getRowCount().getValue()).isEqualTo(20);
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).containsExactly(new SchemaTableName("ks", "a"));
        assertThat(listings).hasValue(2);
        assertThat(statsCalls).hasValue(2);
    }

    @Test
    void aNameTheKeptListingLacksIsLookedUpAgainOncePerTransaction()
    {
        MetadataCache cache = cache(3600);
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).hasSize(1);
        tables.add("b");
        // Listing tables within the TTL shows the kept listing ...
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).hasSize(1);
        assertThat(listings).hasValue(1);
        // ... but a query naming the new table finds it at once.
        assertThat(metadata(cache).getTableHandle(SESSION, new SchemaTableName("ks", "b"), Optional.empty(), Optional.empty()))
                .isEqualTo(SstableFlightTableHandle.of("ks", "b"));
        assertThat(listings).hasValue(2);
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).hasSize(2);

        SstableFlightMetadata transaction = metadata(cache);
        for (int lookup = 0; lookup < 3; lookup++) {
            assertThat(transaction.getTableHandle(SESSION, new SchemaTableName("ks", "missing"), Optional.empty(), Optional.empty())).isNull();
        }
        assertThat(listings).as("a missing name costs one listing per transaction").hasValue(3);
    }

    @Test
    void aFailedListingIsNotKept()
    {
        MetadataCache cache = cache(3600);
        failNextListing.set(true);
        assertThatThrownBy(() -> metadata(cache).listSchemaNames(SESSION))
                .isInstanceOf(TrinoException.class)
                .hasMessageContaining("not now");
        assertThat(metadata(cache).listSchemaNames(SESSION)).containsExactly("ks");
        assertThat(listings).hasValue(2);
    }

    @Test
    void aTtlOfZeroAsksEveryTime()
    {
        MetadataCache cache = cache(0);
        SstableFlightTableHandle a = SstableFlightTableHandle.of("ks", "a");
        for (int query = 0; query < 3; query++) {
            metadata(cache).listSchemaNames(SESSION);
            metadata(cache).getTableStatistics(SESSION, a);
        }
        assertThat(listings).hasValue(3);
        assertThat(statsCalls).hasValue(3);
    }
}
