package io.sstableflight.trino;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheStats;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.airlift.units.Duration;
import io.trino.cache.EvictableCacheBuilder;
import io.trino.spi.TrinoException;
import org.apache.arrow.flight.FlightInfo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The catalog's table listing (ListFlights) and table-stats, kept for
 * {@code sstable-flight.metadata-cache-ttl} across queries. Without it
 * every query paid two metadata calls before planning, where Trino's
 * {@code cassandra} connector reads its driver's schema from memory: on a
 * point query that was most of what separated the two (docs/trino.md).
 * A listing that lacks a name a query asks for is read again at once, so
 * a new table never waits for the TTL; a dropped or altered table can be
 * listed as it was for up to the TTL, and planning it fails or reads it
 * as the server now serves it.
 */
public final class MetadataCache
{
    private static final String LISTING = "listing";
    // Bounds what a catalog of many tables keeps; each entry is two longs.
    private static final long MAX_STATS = 100_000;

    private final FlightClientPool clients;
    private final Cache<String, Map<SstableFlightTableHandle, ServedTable>> listing;
    private final Cache<SstableFlightTableHandle, TableStats> stats;
    private final long statisticsTimeoutMillis;

    @Inject
    public MetadataCache(FlightClientPool clients, SstableFlightConfig config)
    {
        this(clients, config.getMetadataCacheTtl(), config.getStatisticsTimeout(), Ticker.systemTicker());
    }

    MetadataCache(FlightClientPool clients, Duration ttl, Duration statisticsTimeout, Ticker ticker)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.statisticsTimeoutMillis = statisticsTimeout.toMillis();
        long nanos = ttl.roundTo(NANOSECONDS);
        // Trino's EvictableCacheBuilder, not Guava's: a load in flight when the cache is flushed
        // (flush_metadata_cache, a name the listing lacks) is not kept, where Guava would keep it.
        this.listing = EvictableCacheBuilder.newBuilder().expireAfterWrite(nanos, NANOSECONDS).ticker(ticker).shareNothingWhenDisabled().recordStats().build();
        this.stats = EvictableCacheBuilder.newBuilder().expireAfterWrite(nanos, NANOSECONDS).maximumSize(MAX_STATS).ticker(ticker).shareNothingWhenDisabled().recordStats().build();
    }

    /** The served tables (their Arrow schemas and planning), in the server's order: the kept listing while it is fresh. */
    public Map<SstableFlightTableHandle, ServedTable> tables()
    {
        return load(listing, LISTING, this::list);
    }

    /** The tables as the server lists them now; the listing kept from here on. */
    public Map<SstableFlightTableHandle, ServedTable> tablesNow()
    {
        listing.invalidate(LISTING);
        return tables();
    }

    /** The table-stats of a table (an unpushed handle), asked for with sstable-flight.statistics-timeout: planning waits on it. */
    public TableStats stats(SstableFlightTableHandle table)
    {
        return load(stats, table, () -> TableStats.parse(table, clients.doAction(TableStats.ACTION, TableStats.request(table), statisticsTimeoutMillis)));
    }

    /** The table-stats of a table if they are kept now, without asking the server. */
    public Optional<TableStats> keptStats(SstableFlightTableHandle table)
    {
        return Optional.ofNullable(stats.getIfPresent(table));
    }

    /** Drops the kept listing and every kept table-stats (CALL system.flush_metadata_cache()): the next query reads them from the server. */
    public void flush()
    {
        listing.invalidateAll();
        stats.invalidateAll();
    }

    /** Hits and loads of the kept listing (JMX, MetadataCacheStats). */
    CacheStats listingStats()
    {
        return listing.stats();
    }

    /** Hits and loads of the kept table-stats (JMX, MetadataCacheStats). */
    CacheStats tableStatsStats()
    {
        return stats.stats();
    }

    private Map<SstableFlightTableHandle, ServedTable> list()
    {
        Map<SstableFlightTableHandle, ServedTable> listed = new LinkedHashMap<>();
        for (FlightInfo info : clients.listFlights()) {
            List<String> path = info.getDescriptor().getPath();
            if (path.size() != 2) {
                throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "list tables: a flight's descriptor is not [keyspace, table]: " + path);
            }
            listed.put(SstableFlightTableHandle.of(path.get(0), path.get(1)), ServedTable.of(info));
        }
        return Collections.unmodifiableMap(listed);
    }

    // A failed load is not kept: the next query asks the server again.
    private static <K, V> V load(Cache<K, V> cache, K key, Callable<V> loader)
    {
        try {
            return cache.get(key, loader);
        }
        catch (UncheckedExecutionException | ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read metadata: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
