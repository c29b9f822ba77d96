package io.sstableflight.trino.it;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.sstableflight.trino.CqlType;
import io.sstableflight.trino.corpus.Canon;
import io.sstableflight.trino.corpus.CorpusTable;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The differential's judge: one text per value, the same for what Trino's
 * cassandra connector returns and for what ours returns, brought to the
 * cassandra connector's form where ours is richer (docs/trino.md, "Against
 * Trino's cassandra connector"):
 *
 * <ul>
 * <li>types both map alike (every lossless scalar, tuples and UDTs of
 *     them): the value itself, judged by Canon, bit for bit;</li>
 * <li>decimal: theirs is DOUBLE, so ours is read as {@code CAST(c AS DOUBLE)}
 *     ({@link #oursExpression});</li>
 * <li>vector&lt;float, n&gt;: theirs is the serialized VARBINARY, so ours is
 *     read as its big-endian IEEE 754 bytes ({@code to_ieee754_32});</li>
 * <li>list, set and map: theirs is JSON-like text, which this class writes
 *     from our structured value (a map read as {@code map_entries(c)}, in
 *     Cassandra's order) by the cassandra connector's rule
 *     (CassandraTypeManager.objectToJson: strings, uuids, times, dates,
 *     timestamps, addresses and varints quoted, numbers and booleans bare,
 *     blobs as quoted 0x hex, a UDT as its quoted CQL literal);</li>
 * <li>a tuple or UDT with collections among its fields: field by field
 *     by these rules;</li>
 * <li>a tuple inside a collection: theirs prints the driver's Java object
 *     (DefaultTupleValue@hash), no value at all, so both sides write it as
 *     {@code <tuple>} and the rest of the text is compared.</li>
 * </ul>
 */
final class CassandraConnectorValues
{
    private static final Pattern DRIVER_TUPLE = Pattern.compile("com\\.datastax\\.oss\\.driver\\.internal\\.core\\.data\\.DefaultTupleValue@[0-9a-f]+");
    private static final String TUPLE = "<tuple>";
    private static final Set<String> COLLECTIONS = Set.of("list", "set", "map");
    private static final CqlType DOUBLE = new CqlType("double", List.of());

    private final Canon canon;
    private final Map<String, List<CorpusTable.Column>> udts;

    CassandraConnectorValues(Map<String, List<CorpusTable.Column>> udts)
    {
        this.canon = new Canon(udts);
        this.udts = udts;
    }

    /** Whether the cassandra connector gives a column of this type the Trino type ours gives it. */
    boolean sameType(CqlType type)
    {
        return switch (type.name()) {
            case "decimal", "vector", "duration", "list", "set", "map" -> false;
            case "tuple" -> type.arguments().stream().allMatch(this::sameType);
            default -> !udts.containsKey(type.name()) || udts.get(type.name()).stream().allMatch(f -> sameType(f.type()));
        };
    }

    /** Whether the cassandra connector has a column for this type at all (it drops what it cannot map). */
    static boolean theyMap(CqlType type)
    {
        return !type.name().equals("duration");
    }

    /** The SQL that reads our column as the cassandra connector's Trino type, where SQL can say it. */
    static String oursExpression(String column, CqlType type)
    {
        String quoted = "\"" + column + "\"";
        return switch (type.name()) {
            case "decimal" -> "CAST(%s AS DOUBLE)".formatted(quoted);
            // Cassandra serializes a vector<float, n> as its n big-endian floats, which the connector passes on as VARBINARY.
            case "vector" -> "reduce(%s, X'', (s, x) -> s || to_ieee754_32(x), s -> s)".formatted(quoted);
            // NB: JDBC hands a MAP over as a java.util.Map in hash order; its entries keep the block's (Cassandra's) order.
            case "map" -> "map_entries(%s)".formatted(quoted);
            default -> quoted;
        };
    }

    /** A value the cassandra connector returned for a column or field of this type. */
    String theirs(Object value, CqlType type)
            throws SQLException
    {
        return judge(value, type, true);
    }

    /** A value ours returned, read by {@link #oursExpression}, in the cassandra connector's form. */
    String ours(Object value, CqlType type)
            throws SQLException
    {
        return judge(value, type, false);
    }

    private String judge(Object value, CqlType type, boolean theirs)
            throws SQLException
    {
        if (value == null) {
            return "null";
        }
        if (sameType(type)) {
            return canon.actual(value, type);
        }
        return switch (type.name()) {
            case "decimal" -> canon.actual(value, DOUBLE);
            case "vector" -> "0x" + HexFormat.of().formatHex((byte[]) value);
            // Their text as it is (but for the tuples it cannot print); ours written as their connector writes it.
            case "list", "set", "map" -> theirs ? DRIVER_TUPLE.matcher((String) value).replaceAll(TUPLE) : json(value, type);
            case "tuple" -> fields(value, type.arguments(), theirs);
            default -> fields(value, udts.get(type.name()).stream().map(CorpusTable.Column::type).toList(), theirs);
        };
    }

    private String fields(Object row, List<CqlType> types, boolean theirs)
            throws SQLException
    {
        List<Object> values = Canon.rowFields(row);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            out.add(judge(values.get(i), types.get(i), theirs));
        }
        return "(" + String.join(",", out) + ")";
    }

    /** CassandraTypeManager.buildArrayValue / buildMapValue of our collection. */
    private String json(Object value, CqlType type)
            throws SQLException
    {
        StringBuilder out = new StringBuilder();
        if (type.name().equals("map")) {
            if (value instanceof Map<?, ?>) {
                // None in the corpus: a map inside a collection or row would need its own map_entries.
                throw new IllegalArgumentException("a nested map reaches JDBC in hash order, not Cassandra's: read it through map_entries");
            }
            out.append('{');
            for (Object entry : Canon.elements(value)) {
                List<Object> pair = Canon.rowFields(entry);
                if (out.length() > 1) {
                    out.append(',');
                }
                out.append(element(pair.get(0), type.argument(0))).append(':').append(element(pair.get(1), type.argument(1)));
            }
            return out.append('}').toString();
        }
        out.append('[');
        for (Object element : Canon.elements(value)) {
            if (out.length() > 1) {
                out.append(',');
            }
            out.append(element(element, type.argument(0)));
        }
        return out.append(']').toString();
    }

    /** CassandraTypeManager.objectToJson of one element of our collection. */
    private String element(Object value, CqlType type)
            throws SQLException
    {
        return switch (type.name()) {
            case "ascii", "text", "varchar", "varint" -> quote(value.toString());
            case "uuid", "timeuuid" -> quote(value.toString().toLowerCase(java.util.Locale.ROOT));
            case "timestamp" -> quote(instant(value).toString());
            case "date" -> quote(value instanceof java.sql.Date d ? d.toLocalDate().toString() : value.toString());
            case "time" -> quote(value instanceof java.sql.Time t ? t.toLocalTime().toString() : value.toString());
            // InetAddress.toString: "/" and the address, the host name being unset.
            case "inet" -> quote("/" + address(value.toString()).getHostAddress());
            case "blob" -> quote("0x" + HexFormat.of().formatHex((byte[]) value));
            case "decimal" -> new BigDecimal(value.toString()).toString();
            case "tinyint", "smallint", "int", "bigint", "counter", "boolean", "float", "double" -> value.toString();
            case "list", "set", "map" -> json(value, type);
            case "tuple" -> quote(TUPLE);
            default -> quote(cqlLiteral(value, type));
        };
    }

    /**
     * The Java driver's CQL literal of a UDT value (UdtValue.getFormattedContents):
     * {@code {name:'text',n:1,tags:{'a','b'}}}. NB: the driver decodes a null
     * collection field as an empty one, so it prints {@code {}} or {@code []}.
     */
    private String cqlLiteral(Object value, CqlType type)
            throws SQLException
    {
        if (value == null) {
            return switch (type.name()) {
                case "set", "map" -> "{}";
                case "list" -> "[]";
                default -> "NULL";
            };
        }
        return switch (type.name()) {
            case "ascii", "text", "varchar" -> "'" + value.toString().replace("'", "''") + "'";
            case "tinyint", "smallint", "int", "bigint", "counter", "boolean", "float", "double", "varint" -> value.toString();
            case "list", "set" -> {
                List<String> out = new ArrayList<>();
                for (Object element : Canon.elements(value)) {
                    out.add(cqlLiteral(element, type.argument(0)));
                }
                yield String.join(",", out).transform(s -> type.name().equals("list") ? "[" + s + "]" : "{" + s + "}");
            }
            // None in the corpus: a map in a UDT reaches JDBC in hash order, not Cassandra's.
            case "map" -> throw new IllegalArgumentException("the driver's CQL literal of a map inside a UDT is not written here: JDBC loses its order");
            default -> {
                List<CorpusTable.Column> fields = udts.get(type.name());
                if (fields == null) {
                    // Not in the corpus: write it when a table needs it, against the connector's output.
                    throw new IllegalArgumentException("the driver's CQL literal of %s is not written here yet".formatted(type));
                }
                List<Object> values = Canon.rowFields(value);
                List<String> out = new ArrayList<>();
                for (int i = 0; i < fields.size(); i++) {
                    out.add(fields.get(i).name() + ":" + cqlLiteral(values.get(i), fields.get(i).type()));
                }
                yield "{" + String.join(",", out) + "}";
            }
        };
    }

    /** CassandraCqlUtils.quoteStringLiteralForJson: Jackson's JSON string escaping. */
    private static String quote(String text)
    {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsUTF8(text), UTF_8) + '"';
    }

    private static java.time.Instant instant(Object value)
    {
        return switch (value) {
            case java.sql.Timestamp t -> t.toInstant();
            case java.time.ZonedDateTime z -> z.toInstant();
            case java.time.OffsetDateTime o -> o.toInstant();
            default -> throw new IllegalArgumentException("timestamp as " + value.getClass());
        };
    }

    private static InetAddress address(String text)
    {
        try {
            return InetAddress.getByName(text);
        }
        catch (UnknownHostException e) {
            throw new IllegalArgumentException("inet " + text, e);
        }
    }
}
