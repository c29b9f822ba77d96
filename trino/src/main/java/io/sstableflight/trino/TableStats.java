package io.sstableflight.trino;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trino.spi.TrinoException;

import java.io.IOException;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The server's estimates of a whole table from its {@code table-stats}
 * action (docs/flight-api.md): sums over the table's SSTables, so upper
 * bounds (a partition in two SSTables counts twice, a deleted or expired
 * row still counts). A server planning over a ring holds only the ranges
 * its node replicates and scales its sums to the ring
 * ({@code table_rows_estimate}); an older server gives only its own sums.
 */
public record TableStats(long partitions, long rows)
{
    // The server's name of the action: flightserver.ActionTableStats, one
    // entry of its action list (flightserver/actions.go).
    static final String ACTION = "table-stats";
    private static final ObjectMapper JSON = new ObjectMapper();

    static byte[] request(SstableFlightTableHandle table)
    {
        return JSON.createObjectNode()
                .put("keyspace", table.keyspace())
                .put("table", table.table())
                .toString()
                .getBytes(UTF_8);
    }

    static TableStats parse(SstableFlightTableHandle table, byte[] body)
    {
        try {
            JsonNode node = JSON.readTree(body);
            JsonNode partitions = first(node, "table_partitions_estimate", "partitions_estimate");
            JsonNode rows = first(node, "table_rows_estimate", "rows_estimate");
            if (!partitions.canConvertToLong() || !rows.canConvertToLong()) {
                throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read table-stats of %s: no partitions_estimate and rows_estimate in %s".formatted(table.schemaTableName(), new String(body, UTF_8)));
            }
            return new TableStats(partitions.asLong(), rows.asLong());
        }
        catch (IOException e) {
            throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read table-stats of %s: %s".formatted(table.schemaTableName(), e.getMessage()), e);
        }
    }

    private static JsonNode first(JsonNode node, String name, String fallback)
    {
        return node.has(name) ? node.path(name) : node.path(fallback);
    }

    /**
     * The rows a read of this handle returns at most, by the same estimate
     * the server plans with; {@code limitHolds} says whether its limit holds
     * for the whole read (SstableFlightMetadata#limitHolds).
     */
    long rowsOf(SstableFlightTableHandle table, boolean limitHolds)
    {
        long estimate = rows;
        if (table.restriction().isPresent()) {
            double perPartition = (double) rows / Math.max(1, partitions);
            estimate = (long) Math.ceil(perPartition * table.restriction().get().keys().size());
        }
        if (table.limit().isPresent() && limitHolds) {
            estimate = Math.min(estimate, table.limit().getAsLong());
        }
        return estimate;
    }
}
