package io.sstableflight.trino;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.UncheckedIOException;

import static java.util.Objects.requireNonNull;

/**
 * The JSON command of GetFlightInfo (docs/flight-api.md, command version 1).
 * Today the connector plans whole-table scans; projection, keys, clustering
 * slices and limits join the command as pushdown arrives.
 */
public record FlightCommand(String keyspace, String table)
{
    static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    public FlightCommand
    {
        requireNonNull(keyspace, "keyspace is null");
        requireNonNull(table, "table is null");
    }

    public static FlightCommand scan(SstableFlightTableHandle table)
    {
        return new FlightCommand(table.keyspace(), table.table());
    }

    public byte[] toJson()
    {
        ObjectNode node = JSON.createObjectNode();
        node.put("version", VERSION);
        node.put("keyspace", keyspace);
        node.put("table", table);
        try {
            return JSON.writeValueAsBytes(node);
        }
        catch (JsonProcessingException e) {
            throw new UncheckedIOException("write command", e);
        }
    }
}
