package io.sstableflight.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The command's {@code clustering} slice: bounds over a prefix of the
 * clustering columns, in the table's clustering order, so for a DESC
 * column {@code start} holds the larger value (docs/flight-api.md). A
 * missing bound leaves that end open.
 */
public record ClusteringSlice(Optional<Bound> start, Optional<Bound> end)
{
    @JsonCreator
    public ClusteringSlice(@JsonProperty("start") Optional<Bound> start, @JsonProperty("end") Optional<Bound> end)
    {
        this.start = requireNonNull(start, "start is null");
        this.end = requireNonNull(end, "end is null");
    }

    /** The slice for EXPLAIN, as intervals are written: {@code [1, "b"] .. [1] ]}. */
    @Override
    public String toString()
    {
        return start.map(bound -> (bound.inclusive() ? "[" : "(") + String.join(", ", bound.values())).orElse("(-inf")
                + " .. "
                + end.map(bound -> String.join(", ", bound.values()) + (bound.inclusive() ? "]" : ")")).orElse("+inf)");
    }

    /** One end of a slice: JSON literals of the first clustering columns, and whether rows equal on them are in. */
    public record Bound(List<String> values, boolean inclusive)
    {
        @JsonCreator
        public Bound(@JsonProperty("values") List<String> values, @JsonProperty("inclusive") boolean inclusive)
        {
            this.values = ImmutableList.copyOf(values);
            this.inclusive = inclusive;
        }
    }
}
