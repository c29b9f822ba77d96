package io.sstableflight.trino;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.airlift.slice.Slice;
import io.trino.spi.type.UuidType;

import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;

/**
 * Trino values of key and clustering columns as the JSON literals of the
 * command (docs/flight-api.md), by CQL type, and which CQL types may be
 * pushed at all.
 *
 * A type is pushed only where the server's answer is exactly Trino's:
 *
 * - equality (partition keys, and clustering columns bound to one value)
 *   where Trino's equality is Cassandra's, which for keys is byte
 *   equality. Not float and double (Trino's {@code 0.0 = -0.0} holds,
 *   their bytes differ; NaN equals nothing in Trino), varint and decimal
 *   (Trino compares their text, {@code '01' <> '1'}, the server parses
 *   the number), inet (an IPv4 address and its IPv4-mapped IPv6 form are
 *   one Trino value, two Cassandra values).
 * - ranges (a clustering slice) also need both to order values alike:
 *   TestClusteringOrder checks each type here against Cassandra's own
 *   comparators. Not uuid and timeuuid either: Cassandra orders them by
 *   version and time, Trino by their bytes.
 */
final class KeyLiterals
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_SAFE_JSON_INTEGER = 1L << 53;

    static final Set<String> EQUALITY_TYPES = Set.of(
            "tinyint", "smallint", "int", "bigint", "boolean", "ascii", "text", "varchar", "blob",
            "timestamp", "date", "time", "uuid", "timeuuid");
    static final Set<String> RANGE_TYPES = Set.of(
            "tinyint", "smallint", "int", "bigint", "boolean", "ascii", "text", "varchar", "blob",
            "timestamp", "date", "time");

    /** The types whose Trino values are longs counting by one, so that a bounded range is a finite set. */
    static final Set<String> INTEGRAL_TYPES = Set.of("tinyint", "smallint", "int", "bigint", "date");

    private KeyLiterals() {}

    /**
     * The JSON literal of a Trino value of a column of this CQL type, or
     * empty when it cannot be pushed (an ascii column asked for non-ASCII
     * text, a time finer than nanoseconds).
     */
    static Optional<String> literal(String cqlType, Object value)
    {
        return switch (cqlType) {
            case "tinyint", "smallint", "int", "bigint", "date" -> Optional.of(integer((Long) value));
            case "boolean" -> Optional.of(value.toString());
            case "text", "varchar" -> Optional.of(string(((Slice) value).toStringUtf8()));
            case "ascii" -> isAscii((Slice) value) ? Optional.of(string(((Slice) value).toStringUtf8())) : Optional.empty();
            case "blob" -> Optional.of(string("0x" + HexFormat.of().formatHex(((Slice) value).getBytes())));
            case "uuid", "timeuuid" -> Optional.of(string(UuidType.trinoUuidToJavaUuid((Slice) value).toString()));
            // TIMESTAMP(3) WITH TIME ZONE packs the zone beside the instant; the instant is the CQL value.
            case "timestamp" -> Optional.of(integer(unpackMillisUtc((Long) value)));
            // TIME(9) values are picoseconds of the day; CQL's are nanoseconds.
            case "time" -> (Long) value % 1000 == 0 ? Optional.of(integer((Long) value / 1000)) : Optional.empty();
            default -> Optional.empty();
        };
    }

    /**
     * The smallest value of a CQL type whose zero-length value the server
     * reads as null: Cassandra orders that empty value before every other,
     * so a slice open at its low end would return rows whose clustering
     * Trino sees as null and would have filtered out. Bounding it here
     * leaves them out, as Trino's filter does. Empty for the types whose
     * empty value is a real one ({@code ''}, {@code 0x}), which Trino
     * orders first too.
     */
    static Optional<String> lowest(String cqlType)
    {
        return switch (cqlType) {
            case "tinyint" -> Optional.of(Long.toString(Byte.MIN_VALUE));
            case "smallint" -> Optional.of(Long.toString(Short.MIN_VALUE));
            case "int", "date" -> Optional.of(Long.toString(Integer.MIN_VALUE));
            case "bigint", "timestamp" -> Optional.of(string(Long.toString(Long.MIN_VALUE)));
            case "boolean" -> Optional.of("false");
            case "time" -> Optional.of("0");
            default -> Optional.empty();
        };
    }

    /**
     * At most how many bytes a literal of this type takes serialized on the
     * server, for the server's rule of 512 KiB of keys per endpoint; empty
     * when unknown.
     */
    static OptionalInt serializedSize(String cqlType, Object value)
    {
        return switch (cqlType) {
            case "tinyint", "boolean" -> OptionalInt.of(1);
            case "smallint" -> OptionalInt.of(2);
            case "int", "date" -> OptionalInt.of(4);
            case "bigint", "timestamp", "time" -> OptionalInt.of(8);
            case "uuid", "timeuuid" -> OptionalInt.of(16);
            case "text", "varchar", "ascii", "blob" -> OptionalInt.of(((Slice) value).length());
            default -> OptionalInt.empty();
        };
    }

    /** Integers beyond 2^53 as strings: many JSON readers keep no more digits of a number. */
    private static String integer(long value)
    {
        return value > -MAX_SAFE_JSON_INTEGER && value < MAX_SAFE_JSON_INTEGER ? Long.toString(value) : string(Long.toString(value));
    }

    private static String string(String value)
    {
        try {
            return JSON.writeValueAsString(value);
        }
        catch (JsonProcessingException e) {
            throw new UncheckedIOException("write a JSON string", e);
        }
    }

    private static boolean isAscii(Slice value)
    {
        for (int i = 0; i < value.length(); i++) {
            if ((value.getByte(i) & 0x80) != 0) {
                return false;
            }
        }
        return true;
    }
}
