package io.sstableflight.trino;

import com.google.inject.Inject;
import org.weakref.jmx.Managed;

import static java.util.Objects.requireNonNull;

/**
 * The catalog's metadata cache in JMX
 * ({@code trino.plugin.sstableflight:type=MetadataCacheStats,name=<catalog>}):
 * how often a query found the table listing and table-stats kept, and how
 * often they were read from the server, so an operator can see what
 * {@code sstable-flight.metadata-cache-ttl} saves.
 */
public final class MetadataCacheStats
{
    private final MetadataCache cache;

    @Inject
    public MetadataCacheStats(MetadataCache cache)
    {
        this.cache = requireNonNull(cache, "cache is null");
    }

    @Managed(description = "Queries that found the table listing kept")
    public long getListingHits()
    {
        return cache.listingStats().hitCount();
    }

    @Managed(description = "Table listings read from the server (ListFlights)")
    public long getListingLoads()
    {
        return cache.listingStats().loadCount();
    }

    @Managed(description = "Table listings the server failed to give")
    public long getListingLoadFailures()
    {
        return cache.listingStats().loadExceptionCount();
    }

    @Managed(description = "Lookups that found a table's stats kept")
    public long getTableStatsHits()
    {
        return cache.tableStatsStats().hitCount();
    }

    @Managed(description = "Table stats read from the server (table-stats)")
    public long getTableStatsLoads()
    {
        return cache.tableStatsStats().loadCount();
    }

    @Managed(description = "Table stats the server failed to give")
    public long getTableStatsLoadFailures()
    {
        return cache.tableStatsStats().loadExceptionCount();
    }
}
