package io.sstableflight.trino.corpus;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sstableflight.trino.CqlType;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Array;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One text per value, the same for a value of expected.json (the corpus'
 * canonical JSON of what CQL returned) and for what Trino's JDBC driver
 * returns for it through the connector (or BlockValues reads from a page
 * the connector made, in the unit tests). Comparing these texts compares the
 * values: floats bit for bit (negative zero and NaN included), decimals by
 * unscaled value and scale, addresses as addresses, maps as sets of
 * entries, lists, sets and vectors in order.
 */
public final class Canon
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'");

    private final Map<String, List<CorpusTable.Column>> udts;

    public Canon(Map<String, List<CorpusTable.Column>> udts)
    {
        this.udts = udts;
    }

    /** Each row of a table's expected.json as one text: {@code name=value} for every column, in the table's order. */
    public static List<String> expectedRows(CorpusTable table)
    {
        Canon canon = new Canon(table.udts());
        List<String> rows = new ArrayList<>();
        for (Map<String, Object> row : table.rows()) {
            List<String> values = new ArrayList<>();
            for (CorpusTable.Column column : table.columns()) {
                values.add(column.name() + "=" + canon.expected(row.get(column.name()), column.type()));
            }
            rows.add(String.join(" ", values));
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    public String expected(Object value, CqlType type)
    {
        if (value == null) {
            return "null";
        }
        return switch (type.name()) {
            case "ascii", "text", "varchar", "varint" -> quote((String) value);
            case "decimal" -> decimal(new BigDecimal((String) value));
            case "blob" -> ((String) value).toLowerCase();
            case "boolean" -> value.toString();
            case "tinyint", "smallint", "int", "time" -> Long.toString(Long.parseLong(number(value)));
            case "bigint", "counter" -> Long.toString(Long.parseLong((String) value));
            case "float" -> Float.toString(Float.parseFloat(number(value)));
            case "double" -> Double.toString(Double.parseDouble(number(value)));
            case "date", "timestamp" -> (String) value;
            case "uuid", "timeuuid" -> ((String) value).toLowerCase();
            case "inet" -> inet((String) value);
            case "duration" -> {
                Map<String, Object> d = (Map<String, Object>) value;
                yield "(%s,%s,%s)".formatted(number(d.get("months")), number(d.get("days")), number(d.get("nanos")));
            }
            case "list", "set", "vector" -> ((List<Object>) value).stream()
                    .map(e -> expected(e, type.argument(0)))
                    .collect(Collectors.joining(",", "[", "]"));
            case "map" -> ((List<Object>) value).stream()
                    .map(e -> {
                        List<Object> pair = (List<Object>) e;
                        return expected(pair.get(0), type.argument(0)) + "=" + expected(pair.get(1), type.argument(1));
                    })
                    .sorted()
                    .collect(Collectors.joining(",", "{", "}"));
            case "tuple" -> {
                List<Object> fields = (List<Object>) value;
                List<String> out = new ArrayList<>();
                for (int i = 0; i < fields.size(); i++) {
                    out.add(expected(fields.get(i), type.argument(i)));
                }
                yield String.join(",", out).transform(s -> "(" + s + ")");
            }
            default -> {
                Map<String, Object> fields = (Map<String, Object>) value;
                yield udt(type).stream()
                        .map(f -> f.name() + "=" + expected(fields.get(f.name()), f.type()))
                        .collect(Collectors.joining(",", "(", ")"));
            }
        };
    }

    public String actual(Object value, CqlType type)
            throws SQLException
    {
        if (value == null) {
            return "null";
        }
        return switch (type.name()) {
            case "ascii", "text", "varchar", "varint" -> quote((String) value);
            case "decimal" -> decimal(new BigDecimal((String) value));
            case "blob" -> "0x" + HexFormat.of().formatHex((byte[]) value);
            case "boolean" -> value.toString();
            case "tinyint", "smallint", "int", "bigint", "counter" -> Long.toString(((Number) value).longValue());
            case "float" -> Float.toString(((Number) value).floatValue());
            case "double" -> Double.toString(((Number) value).doubleValue());
            case "date" -> date(value);
            case "time" -> Long.toString(time(value));
            case "timestamp" -> timestamp(value);
            case "uuid", "timeuuid" -> value.toString().toLowerCase();
            case "inet" -> inet(value.toString());
            case "duration" -> {
                List<Object> f = rowFields(value);
                yield "(%s,%s,%s)".formatted(f.get(0), f.get(1), f.get(2));
            }
            case "list", "set", "vector" -> {
                List<String> out = new ArrayList<>();
                for (Object element : elements(value)) {
                    out.add(actual(element, type.argument(0)));
                }
                yield String.join(",", out).transform(s -> "[" + s + "]");
            }
            case "map" -> {
                List<String> out = new ArrayList<>();
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                    out.add(actual(entry.getKey(), type.argument(0)) + "=" + actual(entry.getValue(), type.argument(1)));
                }
                yield out.stream().sorted().collect(Collectors.joining(",", "{", "}"));
            }
            case "tuple" -> {
                List<Object> fields = rowFields(value);
                List<String> out = new ArrayList<>();
                for (int i = 0; i < fields.size(); i++) {
                    out.add(actual(fields.get(i), type.argument(i)));
                }
                yield String.join(",", out).transform(s -> "(" + s + ")");
            }
            default -> {
                List<CorpusTable.Column> fields = udt(type);
                List<Object> values = rowFields(value);
                List<String> out = new ArrayList<>();
                for (int i = 0; i < fields.size(); i++) {
                    out.add(fields.get(i).name() + "=" + actual(values.get(i), fields.get(i).type()));
                }
                yield String.join(",", out).transform(s -> "(" + s + ")");
            }
        };
    }

    private List<CorpusTable.Column> udt(CqlType type)
    {
        List<CorpusTable.Column> fields = udts.get(type.name());
        if (fields == null) {
            throw new IllegalArgumentException("unknown CQL type " + type);
        }
        return fields;
    }

    private static String number(Object value)
    {
        return value instanceof RawJson.Number n ? n.text() : (String) value;
    }

    private static String quote(String text)
    {
        try {
            return JSON.writeValueAsString(text);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String decimal(BigDecimal value)
    {
        return value.unscaledValue() + "e" + (-value.scale());
    }

    private static String inet(String text)
    {
        try {
            // A literal: no name is looked up.
            return InetAddress.getByName(text).getHostAddress();
        }
        catch (UnknownHostException e) {
            throw new IllegalArgumentException("inet " + text, e);
        }
    }

    private static String date(Object value)
    {
        return switch (value) {
            case String s -> s;
            case LocalDate d -> d.toString();
            case java.sql.Date d -> d.toLocalDate().toString();
            default -> throw new IllegalArgumentException("date as " + value.getClass());
        };
    }

    private static long time(Object value)
    {
        return switch (value) {
            case String s -> LocalTime.parse(s).toNanoOfDay();
            case LocalTime t -> t.toNanoOfDay();
            case java.sql.Time t -> t.toLocalTime().toNanoOfDay();
            default -> throw new IllegalArgumentException("time as " + value.getClass());
        };
    }

    private static String timestamp(Object value)
    {
        return switch (value) {
            // Trino prints TIMESTAMP(3) WITH TIME ZONE as "2024-01-02 03:04:05.678 UTC".
            case String s when s.endsWith(" UTC") -> s.substring(0, s.length() - 4).replace(' ', 'T') + "Z";
            case ZonedDateTime z -> TIMESTAMP.format(z.withZoneSameInstant(ZoneOffset.UTC));
            case OffsetDateTime o -> TIMESTAMP.format(o.atZoneSameInstant(ZoneOffset.UTC));
            case java.sql.Timestamp t -> TIMESTAMP.format(t.toInstant().atZone(ZoneOffset.UTC));
            default -> throw new IllegalArgumentException("timestamp as " + value.getClass() + ": " + value);
        };
    }

    /** The elements of an array value as JDBC or BlockValues give it. */
    public static List<Object> elements(Object value)
            throws SQLException
    {
        return switch (value) {
            case Array a -> java.util.Arrays.asList((Object[]) a.getArray());
            case Object[] a -> java.util.Arrays.asList(a);
            case List<?> l -> new ArrayList<>(l);
            default -> throw new IllegalArgumentException("array as " + value.getClass());
        };
    }

    /** The fields of a row value as JDBC or BlockValues give it. */
    public static List<Object> rowFields(Object value)
    {
        return switch (value) {
            case io.trino.jdbc.Row row -> row.getFields().stream().map(io.trino.jdbc.RowField::getValue).collect(java.util.stream.Collectors.toCollection(ArrayList::new));
            case List<?> l -> new ArrayList<>(l);
            case Map<?, ?> m -> new ArrayList<>(m.values());
            default -> throw new IllegalArgumentException("row as " + value.getClass());
        };
    }
}
