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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNSUPPORTED_COLUMN;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MINUTES;

/**
 * A page source per split, reading the columns the query uses. The page
 * sources' fetch tasks (taking a batch gRPC has received into the split's
 * Arrow vectors, starting a call) run on a fixed pool of
 * sstable-flight.fetch-threads daemon threads of this catalog, idle ones
 * ending after a minute. None of these tasks waits on a server (why, and
 * why that makes a bounded pool safe: SstableFlightPageSource), so the
 * pool bounds the threads, not the splits read at once.
 */
public final class SstableFlightPageSourceProvider
        implements ConnectorPageSourceProvider, AutoCloseable
{
    private final FlightClientPool clients;
    private final TypeMapping typeMapping;
    private final ExecutorService fetcher;

    @Inject
    public SstableFlightPageSourceProvider(FlightClientPool clients, TypeMapping typeMapping, SstableFlightConfig config)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
        this.fetcher = newFetcher(config.getFetchThreads());
    }

    /** A fixed pool of daemon threads; its queue holds at most one task per open page source. */
    static ExecutorService newFetcher(int threads)
    {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 1, MINUTES, new LinkedBlockingQueue<>(), new ThreadFactoryBuilder()
                .setNameFormat("sstable-flight-fetch-%d")
                .setDaemon(true)
                .build());
        pool.allowCoreThreadTimeOut(true);
        return pool;
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
        return new SstableFlightPageSource(clients, typeMapping, (SstableFlightSplit) split, handles, fetcher, dynamicFilter);
    }

    /** Stops the fetch threads: the catalog is shutting down, its page sources are closed. */
    @Override
    public void close()
    {
        fetcher.shutdownNow();
    }
}
