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
 */
public final class SstableFlightSplitManager
        implements ConnectorSplitManager
{
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
        ImmutableList.Builder<ConnectorSplit> splits = ImmutableList.builder();
        for (FlightEndpoint endpoint : planned.value().getEndpoints()) {
            splits.add(new SstableFlightSplit(endpoint.getTicket().getBytes(), locations(endpoint, planned.server())));
        }
        return new FixedSplitSource(splits.build());
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
