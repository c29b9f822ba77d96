package io.sstableflight.trino;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableList;
import io.trino.spi.TrinoException;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static java.util.Objects.requireNonNull;

/**
 * A table as ListFlights lists it: its Arrow schema, and how the server
 * plans reads of it. ListFlights plans each table's full scan, so its
 * {@code app_metadata} is the plan's (docs/flight-api.md): a server
 * planning over a ring says {@code "planning":"ring"}, and there a limit
 * holds per endpoint, never for the whole read.
 *
 * @param ringPlanned whether the server plans reads of the table over a
 * ring (a cluster of servers), one endpoint per run of ranges with one
 * replica set
 */
public record ServedTable(Schema schema, boolean ringPlanned)
{
    private static final ObjectMapper JSON = new ObjectMapper();

    public ServedTable
    {
        requireNonNull(schema, "schema is null");
    }

    static ServedTable of(FlightInfo info)
    {
        return new ServedTable(info.getSchema(), isRingPlan(info.getAppMetadata()));
    }

    /**
     * Whether a plan's app_metadata says it was planned over a ring. A body
     * that is not JSON counts as a ring plan: then no limit is trusted to
     * hold for the whole read, which costs Trino a Limit of its own and is
     * never wrong.
     */
    static boolean isRingPlan(byte[] appMetadata)
    {
        if (appMetadata == null || appMetadata.length == 0) {
            return false;
        }
        try {
            JsonNode node = JSON.readTree(appMetadata);
            return node == null || !node.isObject() || "ring".equals(node.path("planning").asText());
        }
        catch (IOException e) {
            return true;
        }
    }

    /**
     * The table's columns in the server's (CQL SELECT *) order, typed by
     * {@code typeMapping}; {@code name} names the table in errors. Trino's
     * column names are lower case, so a table whose columns differ only in
     * case cannot be read (NOT_SUPPORTED): Trino could name only one of them.
     */
    List<SstableFlightColumnHandle> columns(String name, TypeMapping typeMapping)
    {
        ImmutableList.Builder<SstableFlightColumnHandle> columns = ImmutableList.builder();
        Set<String> names = new HashSet<>();
        for (Field field : schema.getFields()) {
            if (!names.add(field.getName().toLowerCase(Locale.ENGLISH))) {
                throw new TrinoException(NOT_SUPPORTED, "table %s has columns whose names differ only in case (%s); Trino cannot tell them apart"
                        .formatted(name, schema.getFields().stream()
                                .map(Field::getName)
                                .filter(other -> other.equalsIgnoreCase(field.getName()))
                                .toList()));
            }
            Map<String, String> metadata = Optional.ofNullable(field.getMetadata()).orElse(Map.of());
            String cqlType = metadata.getOrDefault(TypeMapping.CQL_TYPE, "unknown");
            String kind = metadata.getOrDefault(TypeMapping.CQL_KIND, "regular");
            String order = metadata.get(TypeMapping.CQL_CLUSTERING_ORDER);
            if (order != null) {
                kind = kind + " " + order;
            }
            columns.add(SstableFlightColumnHandle.of(field.getName(), cqlType, kind, typeMapping.map(field)));
        }
        return columns.build();
    }
}
