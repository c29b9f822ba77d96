package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.FixedSplitSource;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Location;

import java.net.URI;
import java.util.List;

import static io.sstableflight.trino.SstableFlightSessionProperties.getScanSplits;
import static java.util.Objects.requireNonNull;

/**
 * One split per endpoint of the server's plan of the table handle's
 * command (its projection, keys, clustering slice and limit). The server
 * fixes the read time and snapshot in each ticket at planning, so all
 * splits of a query read the same data however Cassandra flushes
 * meanwhile.
 *
 * Splits are weighted by their row estimate: the server's endpoints carry
 * none of their own, but the plan's {@code total_records} estimates the
 * whole read, and its endpoints share it evenly (equal token ranges, or
 * key groups), so each split gets its share, relative to
 * {@link #STANDARD_SPLIT_ROWS}.
 */
public final class SstableFlightSplitManager
        implements ConnectorSplitManager
{
    /** The rows of a split of standard weight: what the server puts in one scan endpoint (250,000 rows). */
    static final long STANDARD_SPLIT_ROWS = 250_000;

    private final FlightClientPool clients;

    @Inject
    public SstableFlightSplitManager(FlightClientPool clients)
    {
        this.clients = requireNonNull(clients, "clients is null");
    }

    @Override
    public ConnectorSplitSource getSplits(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableHandle table, DynamicFilter dynamicFilter, Constraint constraint)
    {
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        FlightClientPool.Planned<FlightInfo> planned = clients.getFlightInfo(FlightCommand.of(handle, getScanSplits(session)).toJson());
        List<FlightEndpoint> endpoints = planned.value().getEndpoints();
        long rows = rowsPerEndpoint(planned.value().getRecords(), endpoints.size());
        ImmutableList.Builder<ConnectorSplit> splits = ImmutableList.builder();
        for (FlightEndpoint endpoint : endpoints) {
            splits.add(new SstableFlightSplit(endpoint.getTicket().getBytes(), locations(endpoint, planned.server()), rows));
        }
        return new FixedSplitSource(splits.build());
    }

    /** Each endpoint's share of the plan's row estimate; -1 when the server gave none. */
    static long rowsPerEndpoint(long totalRecords, int endpoints)
    {
        if (totalRecords < 0 || endpoints == 0) {
            return -1;
        }
        return (totalRecords + endpoints - 1) / endpoints;
    }

    /** The endpoint's locations in the server's order; none means the server that planned it (docs/flight-api.md). */
    static List<String> locations(FlightEndpoint endpoint, URI planner)
    {
        List<Location> locations = endpoint.getLocations();
        if (locations.isEmpty()) {
            return List.of(planner.toString());
        }
        return locations.stream()
                .map(location -> location.getUri().toString())
                .collect(ImmutableList.toImmutableList());
    }
}
