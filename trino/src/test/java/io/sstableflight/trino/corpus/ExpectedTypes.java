package io.sstableflight.trino.corpus;

import io.sstableflight.trino.CqlType;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Trino type docs/trino.md promises for each CQL type, spelled as
 * DESCRIBE prints it: written out here, independently of the connector's
 * TypeMapping, so a change of mapping fails the suite until the table (and
 * the docs) change with it.
 */
public final class ExpectedTypes
{
    private ExpectedTypes() {}

    public static String trino(CqlType type, Map<String, List<CorpusTable.Column>> udts)
    {
        return switch (type.name()) {
            case "ascii", "text", "varchar", "varint", "decimal" -> "varchar";
            case "inet" -> "ipaddress";
            case "blob" -> "varbinary";
            case "boolean" -> "boolean";
            case "tinyint" -> "tinyint";
            case "smallint" -> "smallint";
            case "int" -> "integer";
            case "bigint", "counter" -> "bigint";
            case "float" -> "real";
            case "double" -> "double";
            case "timestamp" -> "timestamp(3) with time zone";
            case "date" -> "date";
            case "time" -> "time(9)";
            case "duration" -> "row(months integer, days integer, nanoseconds bigint)";
            case "uuid", "timeuuid" -> "uuid";
            case "list", "set", "vector" -> "array(" + trino(type.argument(0), udts) + ")";
            case "map" -> "map(" + trino(type.argument(0), udts) + ", " + trino(type.argument(1), udts) + ")";
            case "tuple" -> type.arguments().stream().map(t -> trino(t, udts)).collect(Collectors.joining(", ", "row(", ")"));
            default -> {
                List<CorpusTable.Column> fields = udts.get(type.name());
                if (fields == null) {
                    throw new IllegalArgumentException("no Trino type expected for CQL " + type);
                }
                yield fields.stream()
                        .map(f -> f.name() + " " + trino(f.type(), udts))
                        .collect(Collectors.joining(", ", "row(", ")"));
            }
        };
    }
}
