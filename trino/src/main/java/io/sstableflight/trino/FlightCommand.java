package io.sstableflight.trino;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * The JSON command of GetFlightInfo (docs/flight-api.md, command version 1):
 * the table and what the table handle pushed down: {@code columns} or
 * {@code count_only}, {@code keys} and {@code clustering}, {@code limit};
 * for a scan, how many endpoints to cut it into ({@code splits}); and the
 * query it is planned for ({@code query_id}), so that the server reads
 * every scan of a table in one query at one read time and snapshot.
 */
public record FlightCommand(String keyspace, String table, Optional<List<String>> columns, Optional<KeyRestriction> restriction, OptionalLong limit, OptionalInt splits, Optional<String> queryId)
{
    static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    public FlightCommand
    {
        requireNonNull(keyspace, "keyspace is null");
        requireNonNull(table, "table is null");
        requireNonNull(columns, "columns is null");
        requireNonNull(restriction, "restriction is null");
        requireNonNull(limit, "limit is null");
        requireNonNull(splits, "splits is null");
        requireNonNull(queryId, "queryId is null");
    }

    /** The command of a table handle, the server sizing its scan endpoints. */
    public static FlightCommand of(SstableFlightTableHandle table)
    {
        return of(table, 0);
    }

    /**
     * The command of a table handle; a scan (no keys) without a limit is
     * cut into {@code scanSplits} endpoints when that is positive. A
     * limited scan never is: the server plans it as one endpoint, which is
     * what makes its limit exact.
     */
    public static FlightCommand of(SstableFlightTableHandle table, int scanSplits)
    {
        boolean scan = table.restriction().isEmpty() && table.limit().isEmpty();
        OptionalInt splits = scan && scanSplits > 0 ? OptionalInt.of(scanSplits) : OptionalInt.empty();
        return new FlightCommand(table.keyspace(), table.table(), table.columns(), table.restriction(), table.limit(), splits, Optional.empty());
    }

    /** This command, planned for one query: every plan naming the query reads what its first plan read. */
    public FlightCommand forQuery(String queryId)
    {
        return new FlightCommand(keyspace, table, columns, restriction, limit, splits, Optional.of(queryId));
    }

    public byte[] toJson()
    {
        ObjectNode node = JSON.createObjectNode();
        node.put("version", VERSION);
        node.put("keyspace", keyspace);
        node.put("table", table);
        columns.ifPresent(names -> {
            if (names.isEmpty()) {
                node.put("count_only", true);
            }
            else {
                ArrayNode array = node.putArray("columns");
                names.forEach(array::add);
            }
        });
        restriction.ifPresent(pushed -> {
            ArrayNode keys = node.putArray("keys");
            for (List<String> key : pushed.keys()) {
                ObjectNode object = keys.addObject();
                for (int i = 0; i < key.size(); i++) {
                    // The values are JSON literals already (KeyLiterals).
                    object.putRawValue(pushed.keyColumns().get(i), new RawValue(key.get(i)));
                }
            }
            pushed.clustering().ifPresent(slice -> {
                ObjectNode clustering = node.putObject("clustering");
                slice.start().ifPresent(bound -> bound(clustering.putObject("start"), bound));
                slice.end().ifPresent(bound -> bound(clustering.putObject("end"), bound));
            });
        });
        limit.ifPresent(rows -> node.put("limit", rows));
        splits.ifPresent(count -> node.put("splits", count));
        queryId.ifPresent(id -> node.put("query_id", id));
        try {
            return JSON.writeValueAsBytes(node);
        }
        catch (JsonProcessingException e) {
            throw new UncheckedIOException("write command", e);
        }
    }

    private static void bound(ObjectNode node, ClusteringSlice.Bound bound)
    {
        ArrayNode values = node.putArray("values");
        bound.values().forEach(value -> values.addRawValue(new RawValue(value)));
        node.put("inclusive", bound.inclusive());
    }
}
