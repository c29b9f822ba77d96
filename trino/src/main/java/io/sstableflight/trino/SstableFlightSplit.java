package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorSplit;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOf;
import static java.util.Objects.requireNonNull;

/**
 * One endpoint of the server's plan: the ticket to pass back to DoGet
 * unchanged, and where to read it, primary first (the planning server when
 * the endpoint names none). The page source tries the next location only
 * while no batch has been read.
 */
public record SstableFlightSplit(byte[] ticket, List<String> locations)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(SstableFlightSplit.class);

    public SstableFlightSplit
    {
        requireNonNull(ticket, "ticket is null");
        locations = ImmutableList.copyOf(locations);
        if (locations.isEmpty()) {
            throw new IllegalArgumentException("a split needs a location");
        }
    }

    public List<URI> locationUris()
    {
        return locations.stream().map(URI::create).collect(ImmutableList.toImmutableList());
    }

    @Override
    public List<HostAddress> getAddresses()
    {
        // Hints only: any Trino worker can read any location.
        return locationUris().stream()
                .map(uri -> HostAddress.fromParts(uri.getHost(), uri.getPort()))
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public Map<String, String> getSplitInfo()
    {
        return Map.of("locations", String.join(",", locations), "ticketBytes", Integer.toString(ticket.length));
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + sizeOf(ticket) + estimatedSizeOf(locations, value -> estimatedSizeOf(value));
    }
}
