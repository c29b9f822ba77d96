package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.google.inject.Inject;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNSUPPORTED_COLUMN;
import static java.util.Objects.requireNonNull;

/**
 * A page source per split, reading the columns the query uses. The page
 * sources' network waits (opening a stream, the next batch) run on one
 * cached pool of daemon threads of this catalog, so Trino's driver threads
 * never block on a server; a fetch thread waits on one split at a time and
 * idles out after a minute.
 */
public final class SstableFlightPageSourceProvider
        implements ConnectorPageSourceProvider, AutoCloseable
{
    private final FlightClientPool clients;
    private final TypeMapping typeMapping;
    private final ExecutorService fetcher = Executors.newCachedThreadPool(new ThreadFactoryBuilder()
            .setNameFormat("sstable-flight-fetch-%d")
            .setDaemon(true)
            .build());

    @Inject
    public SstableFlightPageSourceProvider(FlightClientPool clients, TypeMapping typeMapping)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
    }

    @Override
    public ConnectorPageSource createPageSource(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorSplit split, ConnectorTableHandle table, List<ColumnHandle> columns, DynamicFilter dynamicFilter)
    {
        List<SstableFlightColumnHandle> handles = columns.stream()
                .map(SstableFlightColumnHandle.class::cast)
                .collect(ImmutableList.toImmutableList());
        for (SstableFlightColumnHandle column : handles) {
            if (column.unsupported().isPresent()) {
                throw new TrinoException(SSTABLE_FLIGHT_UNSUPPORTED_COLUMN, "column %s of %s (cql %s) cannot be read yet: %s; leave it out of the query".formatted(
                        column.name(), table, column.cqlType(), column.unsupported().get()));
            }
        }
        return new SstableFlightPageSource(clients, typeMapping, (SstableFlightSplit) split, handles, fetcher);
    }

    /** Stops the fetch threads: the catalog is shutting down, its page sources are closed. */
    @Override
    public void close()
    {
        fetcher.shutdownNow();
    }
}
