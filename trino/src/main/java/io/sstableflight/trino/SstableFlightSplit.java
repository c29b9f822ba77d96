package io.sstableflight.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.google.common.collect.ImmutableList;
import io.trino.spi.HostAddress;
import io.trino.spi.SplitWeight;
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
 *
 * @param rowEstimate the rows the split is expected to read (its share of
 * the plan's estimate), -1 when unknown; it weighs the split for Trino's
 * scheduler
 */
public record SstableFlightSplit(byte[] ticket, List<String> locations, long rowEstimate)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(SstableFlightSplit.class);
    /** The lightest split: a point read still costs a stream, so it never weighs nothing. */
    static final double MIN_WEIGHT = 0.05;

    @JsonCreator
    public SstableFlightSplit
    {
        requireNonNull(ticket, "ticket is null");
        locations = ImmutableList.copyOf(locations);
        if (locations.isEmpty()) {
            throw new IllegalArgumentException("a split needs a location");
        }
    }

    /** A split whose rows are not estimated: of standard weight. */
    public SstableFlightSplit(byte[] ticket, List<String> locations)
    {
        this(ticket, locations, -1);
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
    public SplitWeight getSplitWeight()
    {
        if (rowEstimate < 0) {
            return SplitWeight.standard();
        }
        // As Trino's file connectors weigh splits by size: a share of a standard split, never more than one.
        double proportion = (double) rowEstimate / SstableFlightSplitManager.STANDARD_SPLIT_ROWS;
        return SplitWeight.fromProportion(Math.clamp(proportion, MIN_WEIGHT, 1.0));
    }

    @Override
    public Map<String, String> getSplitInfo()
    {
        return Map.of("locations", String.join(",", locations), "ticketBytes", Integer.toString(ticket.length), "rowEstimate", Long.toString(rowEstimate));
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + sizeOf(ticket) + estimatedSizeOf(locations, value -> estimatedSizeOf(value));
    }
}
