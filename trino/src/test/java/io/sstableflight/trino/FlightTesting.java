package io.sstableflight.trino;

import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.TypeOperators;

import java.util.List;

import static io.trino.spi.type.VarcharType.VARCHAR;

/** Reads a split through the connector's own page source, outside Trino, for the failover tests. */
public final class FlightTesting
{
    private FlightTesting() {}

    /** The rows of a split read with no column (as count(*) reads). */
    public static long countRows(FlightClientPool clients, SstableFlightSplit split, String table)
    {
        // IPADDRESS lives in the engine; the tables read here have no inet column.
        TypeMapping mapping = new TypeMapping(VARCHAR, new TypeOperators());
        long rows = 0;
        try (SstableFlightPageSource source = new SstableFlightPageSource(clients, mapping, split, List.of())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page != null) {
                    rows += page.getPositionCount();
                }
            }
            return rows;
        }
    }
}
