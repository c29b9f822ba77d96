package io.sstableflight.trino;

import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.TypeOperators;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import static io.trino.spi.type.VarcharType.VARCHAR;

/** Reads a split through the connector's own page source, outside Trino, as Trino's driver does. */
public final class FlightTesting
{
    private FlightTesting() {}

    /** The rows of a split read with no column (as count(*) reads). */
    public static long countRows(FlightClientPool clients, SstableFlightSplit split, String table)
    {
        return countRows(clients, split, table, () -> {});
    }

    /** As {@link #countRows(FlightClientPool, SstableFlightSplit, String)}, running {@code afterFirstPage} once Trino would hold the first page (a test kills the server there). */
    public static long countRows(FlightClientPool clients, SstableFlightSplit split, String table, Runnable afterFirstPage)
    {
        // IPADDRESS lives in the engine; the tables read here have no inet column.
        TypeMapping mapping = new TypeMapping(VARCHAR, new TypeOperators());
        long[] rows = {0};
        try (ExecutorService fetcher = Executors.newCachedThreadPool();
                SstableFlightPageSource source = new SstableFlightPageSource(clients, mapping, split, List.of(), fetcher)) {
            drain(source, page -> {
                if (rows[0] == 0) {
                    afterFirstPage.run();
                }
                rows[0] += page.getPositionCount();
            });
        }
        return rows[0];
    }

    /** Hands every page of a source to {@code pages}, waiting on isBlocked between them as Trino's driver does. */
    static void drain(SstableFlightPageSource source, Consumer<SourcePage> pages)
    {
        while (!source.isFinished()) {
            try {
                source.isBlocked().get();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            catch (ExecutionException e) {
                throw new IllegalStateException("isBlocked completed exceptionally (it must not)", e);
            }
            SourcePage page = source.getNextSourcePage();
            if (page != null) {
                pages.accept(page);
            }
        }
    }
}
