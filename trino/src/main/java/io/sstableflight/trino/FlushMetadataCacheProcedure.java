package io.sstableflight.trino;

import com.google.inject.Inject;
import com.google.inject.Provider;
import io.trino.spi.procedure.Procedure;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;

import static java.lang.invoke.MethodType.methodType;
import static java.util.Objects.requireNonNull;

/**
 * {@code CALL <catalog>.system.flush_metadata_cache()}: drops the table
 * listing and table-stats the catalog keeps for
 * {@code sstable-flight.metadata-cache-ttl}, so the next query sees a
 * dropped or altered table, or new statistics, at once, as Trino's caching
 * connectors offer.
 */
public final class FlushMetadataCacheProcedure
        implements Provider<Procedure>
{
    public static final String SCHEMA = "system";
    public static final String NAME = "flush_metadata_cache";

    private static final MethodHandle FLUSH;

    static {
        try {
            FLUSH = MethodHandles.lookup().findVirtual(FlushMetadataCacheProcedure.class, "flushMetadataCache", methodType(void.class));
        }
        catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private final MetadataCache metadataCache;

    @Inject
    public FlushMetadataCacheProcedure(MetadataCache metadataCache)
    {
        this.metadataCache = requireNonNull(metadataCache, "metadataCache is null");
    }

    @Override
    public Procedure get()
    {
        return new Procedure(SCHEMA, NAME, List.of(), FLUSH.bindTo(this));
    }

    public void flushMetadataCache()
    {
        metadataCache.flush();
    }
}
