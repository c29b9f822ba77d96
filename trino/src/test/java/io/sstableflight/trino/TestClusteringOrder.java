package io.sstableflight.trino;

import io.airlift.slice.Slices;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.AsciiType;
import org.apache.cassandra.db.marshal.BooleanType;
import org.apache.cassandra.db.marshal.ByteType;
import org.apache.cassandra.db.marshal.BytesType;
import org.apache.cassandra.db.marshal.DecimalType;
import org.apache.cassandra.db.marshal.DoubleType;
import org.apache.cassandra.db.marshal.FloatType;
import org.apache.cassandra.db.marshal.Int32Type;
import org.apache.cassandra.db.marshal.IntegerType;
import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.db.marshal.ShortType;
import org.apache.cassandra.db.marshal.SimpleDateType;
import org.apache.cassandra.db.marshal.TimeType;
import org.apache.cassandra.db.marshal.TimeUUIDType;
import org.apache.cassandra.db.marshal.TimestampType;
import org.apache.cassandra.db.marshal.UTF8Type;
import org.apache.cassandra.db.marshal.UUIDType;
import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static io.trino.spi.function.InvocationConvention.InvocationArgumentConvention.NEVER_NULL;
import static io.trino.spi.function.InvocationConvention.InvocationReturnConvention.FAIL_ON_NULL;
import static io.trino.spi.function.InvocationConvention.simpleConvention;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.TIME_NANOS;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether Trino compares the values of each CQL type as Cassandra does,
 * which decides what {@link KeyLiterals} pushes: Trino's comparison of
 * each value's Trino form against Cassandra's own comparator (the
 * cassandra-all 5.0.9 classes the clustering order of an SSTable is
 * written by) of its serialized form, for every pair of values chosen to
 * be hard (extremes, signs, bytes with the high bit set, text beyond the
 * BMP, where UTF-16 and UTF-8 order differ).
 *
 * A type pushed as a range must agree on the order of every pair; one
 * pushed as an equality, on which pairs are equal. For the types pushed
 * neither way the test pins a pair on which the two disagree, so that a
 * change of either side that would make them pushable shows.
 */
class TestClusteringOrder
{
    private static final TypeOperators OPERATORS = new TypeOperators();

    /** A value as Trino holds it and as Cassandra serializes it. */
    private record Value(Object trino, ByteBuffer cassandra)
    {
        @Override
        public String toString()
        {
            return trino + " / 0x" + HexFormat.of().formatHex(bytes(cassandra));
        }
    }

    private record Sample(Type trino, AbstractType<?> cassandra, List<Value> values) {}

    private static Map<String, Sample> samples()
    {
        return Map.ofEntries(
                Map.entry("tinyint", new Sample(TINYINT, ByteType.instance, longs(ByteType.instance, Byte.MIN_VALUE, -1, 0, 1, Byte.MAX_VALUE))),
                Map.entry("smallint", new Sample(SMALLINT, ShortType.instance, longs(ShortType.instance, Short.MIN_VALUE, -1, 0, 1, 255, 256, Short.MAX_VALUE))),
                Map.entry("int", new Sample(INTEGER, Int32Type.instance, longs(Int32Type.instance, Integer.MIN_VALUE, -256, -1, 0, 1, 255, 256, Integer.MAX_VALUE))),
                Map.entry("bigint", new Sample(BIGINT, LongType.instance, longs(LongType.instance, Long.MIN_VALUE, -1L << 32, -1, 0, 1, 1L << 32, Long.MAX_VALUE))),
                Map.entry("boolean", new Sample(BOOLEAN, BooleanType.instance, List.of(
                        new Value(false, BooleanType.instance.decompose(false)), new Value(true, BooleanType.instance.decompose(true))))),
                Map.entry("text", new Sample(VARCHAR, UTF8Type.instance, texts(UTF8Type.instance,
                        "", "\u0000", " ", "A", "Z", "a", "ab", "b", "z", "~", "\u007f", "é", "é-unicode", "\u0800", "\uffee", "\uffff", "\ud83d\ude00", "\udbff\udfff"))),
                Map.entry("ascii", new Sample(VARCHAR, AsciiType.instance, texts(AsciiType.instance, "", "\u0000", " ", "A", "Z", "a", "ab", "b", "z", "~", "\u007f"))),
                Map.entry("blob", new Sample(VARBINARY, BytesType.instance, blobs("", "00", "0000", "01", "7f", "80", "ff", "00ff", "ff00", "ffff"))),
                Map.entry("timestamp", new Sample(TIMESTAMP_TZ_MILLIS, TimestampType.instance, timestamps(-62_135_596_800_000L, -86_400_000L, -1, 0, 1, 255, 256, 82_800_000L, 253_402_300_799_999L))),
                Map.entry("date", new Sample(DATE, SimpleDateType.instance, dates(Integer.MIN_VALUE, -719_162, -1, 0, 1, 255, 256, 2_932_896, Integer.MAX_VALUE))),
                Map.entry("time", new Sample(TIME_NANOS, TimeType.instance, times(0, 1, 255, 256, 1_000_000_000L, 86_399_999_999_999L))),
                Map.entry("uuid", new Sample(UUID, UUIDType.instance, uuids(UUIDType.instance,
                        "00000000-0000-1000-8000-000000000000", "00000000-0000-1001-8000-000000000000", "ffffffff-0000-1000-8000-000000000000",
                        "00000000-0000-4000-8000-000000000000", "7fffffff-ffff-4fff-bfff-ffffffffffff", "80000000-0000-4000-8000-000000000000",
                        "ffffffff-ffff-4fff-bfff-ffffffffffff"))),
                Map.entry("timeuuid", new Sample(UUID, TimeUUIDType.instance, uuids(TimeUUIDType.instance,
                        "00000000-0000-1000-8000-000000000000", "00000000-0000-1001-8000-000000000000", "ffffffff-0000-1000-8000-000000000000",
                        "00000000-ffff-1000-8000-000000000000", "00000000-0000-1000-c000-000000000000", "00000000-0000-1000-8000-000000000001"))),
                Map.entry("double", new Sample(DOUBLE, DoubleType.instance, doubles(Double.NEGATIVE_INFINITY, -1.0, -0.0, 0.0, 1.0, Double.POSITIVE_INFINITY, Double.NaN))),
                Map.entry("float", new Sample(REAL, FloatType.instance, floats(Float.NEGATIVE_INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, Float.POSITIVE_INFINITY, Float.NaN))),
                // varint and decimal are VARCHAR in Trino: their text, compared as text.
                Map.entry("varint", new Sample(VARCHAR, IntegerType.instance, List.of("-10", "-9", "0", "9", "10").stream()
                        .map(text -> new Value(Slices.utf8Slice(text), IntegerType.instance.decompose(new BigInteger(text)))).toList())),
                Map.entry("decimal", new Sample(VARCHAR, DecimalType.instance, List.of("1.0", "1.00", "9", "10").stream()
                        .map(text -> new Value(Slices.utf8Slice(text), DecimalType.instance.decompose(new BigDecimal(text)))).toList())));
    }

    @Test
    void everyPushedTypeIsSampled()
    {
        assertThat(samples().keySet()).containsAll(KeyLiterals.EQUALITY_TYPES.stream().filter(type -> !type.equals("varchar")).toList());
    }

    @Test
    void rangeTypesOrderAsCassandraDoes()
    {
        for (String type : KeyLiterals.RANGE_TYPES) {
            if (type.equals("varchar")) {
                continue; // text's alias
            }
            Sample sample = samples().get(type);
            assertThat(disagreements(sample, true)).as("pairs of %s Trino orders otherwise than Cassandra", type).isEmpty();
        }
    }

    @Test
    void equalityTypesAreEqualWhereCassandraIs()
    {
        for (String type : KeyLiterals.EQUALITY_TYPES) {
            if (type.equals("varchar")) {
                continue;
            }
            Sample sample = samples().get(type);
            assertThat(disagreements(sample, false)).as("pairs of %s Trino and Cassandra disagree on the equality of", type).isEmpty();
        }
    }

    @Test
    void whatIsNotPushedDisagrees()
    {
        // Ordered by version and time in Cassandra, by bytes in Trino.
        assertThat(disagreements(samples().get("uuid"), true)).isNotEmpty();
        assertThat(disagreements(samples().get("timeuuid"), true)).isNotEmpty();
        // 0.0 = -0.0 in Trino, two values in Cassandra; NaN equals nothing in Trino.
        assertThat(disagreements(samples().get("double"), false)).isNotEmpty();
        assertThat(disagreements(samples().get("float"), false)).isNotEmpty();
        // Text order against numeric order; '1.0' and '1.00' are one decimal to Cassandra's comparator.
        assertThat(disagreements(samples().get("varint"), true)).isNotEmpty();
        assertThat(disagreements(samples().get("decimal"), false)).isNotEmpty();
        for (String type : List.of("uuid", "timeuuid", "double", "float", "varint", "decimal", "inet")) {
            assertThat(KeyLiterals.RANGE_TYPES).doesNotContain(type);
        }
        for (String type : List.of("double", "float", "varint", "decimal", "inet")) {
            assertThat(KeyLiterals.EQUALITY_TYPES).doesNotContain(type);
        }
    }

    @Test
    void theEmptyValueSortsBeforeTheLowestBound()
    {
        // Cassandra orders a zero-length value first; the server reads it as null for these types, so a slice
        // open at its low end starts at the type's smallest value (KeyLiterals.lowest), which leaves it out.
        ByteBuffer empty = ByteBuffer.allocate(0);
        for (String type : List.of("int", "bigint", "boolean", "timestamp")) {
            Sample sample = samples().get(type);
            assertThat(sample.cassandra().allowsEmpty()).as("%s has an empty value", type).isTrue();
            ByteBuffer lowest = sample.cassandra().fromString(KeyLiterals.lowest(type).orElseThrow().replace("\"", ""));
            assertThat(sample.cassandra().compare(empty, lowest)).as("empty %s against its lowest bound", type).isNegative();
            for (Value value : sample.values()) {
                assertThat(sample.cassandra().compare(lowest, value.cassandra())).as("%s's lowest bound against %s", type, value).isLessThanOrEqualTo(0);
            }
        }
        // tinyint, smallint, date and time have no empty value (Cassandra refuses one); a bound changes nothing there.
        for (String type : List.of("tinyint", "smallint", "date", "time")) {
            assertThat(samples().get(type).cassandra().allowsEmpty()).as("%s has an empty value", type).isFalse();
        }
        // Text and blob have a real empty value, which Trino orders first too (rangeTypesOrderAsCassandraDoes).
        assertThat(KeyLiterals.lowest("text")).isEmpty();
        assertThat(KeyLiterals.lowest("blob")).isEmpty();
    }

    /** The pairs on which Trino and Cassandra disagree: on their order, or only on whether they are equal. */
    private static List<String> disagreements(Sample sample, boolean order)
    {
        MethodHandle compare = OPERATORS.getComparisonUnorderedLastOperator(sample.trino(), simpleConvention(FAIL_ON_NULL, NEVER_NULL, NEVER_NULL));
        MethodHandle equal = OPERATORS.getEqualOperator(sample.trino(), simpleConvention(FAIL_ON_NULL, NEVER_NULL, NEVER_NULL));
        List<String> disagreements = new ArrayList<>();
        for (Value left : sample.values()) {
            for (Value right : sample.values()) {
                int cassandra = Integer.signum(sample.cassandra().compare(left.cassandra(), right.cassandra()));
                try {
                    if (order) {
                        int trino = Long.signum((long) compare.invoke(left.trino(), right.trino()));
                        if (trino != cassandra) {
                            disagreements.add("%s vs %s: Trino %d, Cassandra %d".formatted(left, right, trino, cassandra));
                        }
                    }
                    else {
                        boolean trino = (boolean) equal.invoke(left.trino(), right.trino());
                        if (trino != (cassandra == 0)) {
                            disagreements.add("%s vs %s: Trino %s, Cassandra %d".formatted(left, right, trino ? "equal" : "unequal", cassandra));
                        }
                    }
                }
                catch (Throwable e) {
                    throw new AssertionError("compare " + left + " and " + right, e);
                }
            }
        }
        return disagreements;
    }

    private static List<Value> longs(AbstractType<?> type, long... values)
    {
        List<Value> out = new ArrayList<>();
        for (long value : values) {
            ByteBuffer bytes = switch (type) {
                case ByteType t -> t.decompose((byte) value);
                case ShortType t -> t.decompose((short) value);
                case Int32Type t -> t.decompose((int) value);
                case LongType t -> t.decompose(value);
                default -> throw new IllegalArgumentException(type.toString());
            };
            out.add(new Value(value, bytes));
        }
        return out;
    }

    private static List<Value> texts(AbstractType<String> type, String... values)
    {
        return java.util.Arrays.stream(values).map(text -> new Value(Slices.utf8Slice(text), type.decompose(text))).toList();
    }

    private static List<Value> blobs(String... hex)
    {
        return java.util.Arrays.stream(hex).map(h -> {
            byte[] bytes = HexFormat.of().parseHex(h);
            return new Value(Slices.wrappedBuffer(bytes), ByteBuffer.wrap(bytes));
        }).toList();
    }

    private static List<Value> timestamps(long... millis)
    {
        return java.util.Arrays.stream(millis).mapToObj(ms -> new Value(packDateTimeWithZone(ms, UTC_KEY), TimestampType.instance.decompose(new java.util.Date(ms)))).toList();
    }

    private static List<Value> dates(long... days)
    {
        // CQL's date is the day number plus 2^31, unsigned (docs/types.md).
        return java.util.Arrays.stream(days).mapToObj(d -> new Value(d, SimpleDateType.instance.decompose((int) (d + (1L << 31))))).toList();
    }

    private static List<Value> times(long... nanos)
    {
        return java.util.Arrays.stream(nanos).mapToObj(ns -> new Value(ns * 1000, TimeType.instance.decompose(ns))).toList();
    }

    private static List<Value> uuids(AbstractType<?> type, String... values)
    {
        return java.util.Arrays.stream(values)
                .map(text -> new Value(javaUuidToTrinoUuid(java.util.UUID.fromString(text)), type.fromString(text)))
                .toList();
    }

    private static List<Value> doubles(double... values)
    {
        return java.util.Arrays.stream(values).mapToObj(v -> new Value(v, DoubleType.instance.decompose(v))).toList();
    }

    private static List<Value> floats(float... values)
    {
        List<Value> out = new ArrayList<>();
        for (float value : values) {
            // REAL holds a float's bits in a long.
            out.add(new Value((long) Float.floatToRawIntBits(value), FloatType.instance.decompose(value)));
        }
        return out;
    }

    /** The bytes of a buffer, leaving its position alone. */
    private static byte[] bytes(ByteBuffer buffer)
    {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
