package io.sstableflight.trino;

import com.google.common.base.Ticker;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static io.trino.spi.type.VarcharType.VARCHAR;
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

    private final AtomicLong nanos = new AtomicLong();
    private final Ticker ticker = new Ticker()
    {
        @Override
        public long read()
        {
            return nanos.get();
        }
    };
    private CatalogFlightServer server;
    private FlightClientPool clients;

    @BeforeEach
    void start()
            throws Exception
    {
        server = new CatalogFlightServer();
        server.serve("ks", "a", ScriptedFlightServers.SCHEMA);
        server.stats = n -> "{\"partitions_estimate\":%d,\"rows_estimate\":%d}".formatted(n, 10 * n);
        clients = new FlightClientPool(new SstableFlightConfig().setUri(server.uri()));
    }

    @AfterEach
    void stop()
            throws Exception
    {
        clients.close();
        server.close();
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
        assertThat(server.listings).hasValue(1);
        assertThat(server.statsCalls).hasValue(1);

        nanos.addAndGet(SECONDS.toNanos(11));
        assertThat(metadata(cache).getTableStatistics(SESSION, a).getRowCount().getValue()).isEqualTo(20);
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).containsExactly(new SchemaTableName("ks", "a"));
        assertThat(server.listings).hasValue(2);
        assertThat(server.statsCalls).hasValue(2);
    }

    @Test
    void aNameTheKeptListingLacksIsLookedUpAgainOncePerTransaction()
    {
        MetadataCache cache = cache(3600);
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).hasSize(1);
        server.serve("ks", "b", ScriptedFlightServers.SCHEMA);
        // Listing tables within the TTL shows the kept listing ...
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).hasSize(1);
        assertThat(server.listings).hasValue(1);
        // ... but a query naming the new table finds it at once.
        assertThat(metadata(cache).getTableHandle(SESSION, new SchemaTableName("ks", "b"), Optional.empty(), Optional.empty()))
                .isEqualTo(SstableFlightTableHandle.of("ks", "b"));
        assertThat(server.listings).hasValue(2);
        assertThat(metadata(cache).listTables(SESSION, Optional.empty())).hasSize(2);

        SstableFlightMetadata transaction = metadata(cache);
        for (int lookup = 0; lookup < 3; lookup++) {
            assertThat(transaction.getTableHandle(SESSION, new SchemaTableName("ks", "missing"), Optional.empty(), Optional.empty())).isNull();
        }
        assertThat(server.listings).as("a missing name costs one listing per transaction").hasValue(3);
    }

    @Test
    void aFailedListingIsNotKept()
    {
        MetadataCache cache = cache(3600);
        server.failNextListing.set(true);
        assertThatThrownBy(() -> metadata(cache).listSchemaNames(SESSION))
                .isInstanceOf(TrinoException.class)
                .hasMessageContaining("not now");
        assertThat(metadata(cache).listSchemaNames(SESSION)).containsExactly("ks");
        assertThat(server.listings).hasValue(2);
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
        assertThat(server.listings).hasValue(3);
        assertThat(server.statsCalls).hasValue(3);
    }
}
