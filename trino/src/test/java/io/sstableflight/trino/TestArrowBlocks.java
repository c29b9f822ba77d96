package io.sstableflight.trino;

import io.trino.spi.TrinoException;
import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_BAD_DATA;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimeType.TIME_NANOS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.trinoUuidToJavaUuid;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Arrow vectors as the server builds them, converted to Trino blocks and
 * read back through Trino's own types. The allocator must be empty after
 * each test: the conversion copies and keeps no Arrow buffer.
 */
class TestArrowBlocks
        extends CheckedAllocatorTest
{
    // IPADDRESS lives in the engine, not the SPI; these tests map no inet column.
    private final TypeMapping mapping = new TypeMapping(VARCHAR, new TypeOperators());
    private final TypeMapping ipMapping = new TypeMapping(TestingIpAddressType.IPADDRESS, new TypeOperators());
    private static Field withCql(Field field, String cqlType)
    {
        return new Field(field.getName(), new FieldType(true, field.getType(), null, Map.of(TypeMapping.CQL_TYPE, cqlType)), field.getChildren());
    }

    private Block convert(FieldVector vector, String cqlType)
    {
        ColumnMapping columnMapping = mapping.map(withCql(vector.getField(), cqlType));
        assertThat(columnMapping.isSupported()).as("%s maps", cqlType).isTrue();
        return ArrowBlocks.toBlock(vector, columnMapping, vector.getName());
    }

    @Test
    void fixedWidthValuesAndNulls()
    {
        try (BigIntVector vector = new BigIntVector("b", allocator)) {
            vector.allocateNew(3);
            vector.set(0, Long.MIN_VALUE);
            vector.setNull(1);
            vector.set(2, Long.MAX_VALUE);
            vector.setValueCount(3);
            Block block = convert(vector, "bigint");
            assertThat(BIGINT.getLong(block, 0)).isEqualTo(Long.MIN_VALUE);
            assertThat(block.isNull(1)).isTrue();
            assertThat(BIGINT.getLong(block, 2)).isEqualTo(Long.MAX_VALUE);
        }
    }

    @Test
    void booleansFromBits()
    {
        try (BitVector vector = new BitVector("b", allocator)) {
            vector.allocateNew(10);
            for (int i = 0; i < 10; i++) {
                vector.set(i, i % 3 == 0 ? 1 : 0);
            }
            vector.setValueCount(10);
            Block block = convert(vector, "boolean");
            for (int i = 0; i < 10; i++) {
                assertThat(BOOLEAN.getBoolean(block, i)).as("position %d", i).isEqualTo(i % 3 == 0);
            }
        }
    }

    @Test
    void realKeepsNegativeZeroAndNaN()
    {
        try (Float4Vector vector = new Float4Vector("f", allocator)) {
            vector.allocateNew(2);
            vector.set(0, -0.0f);
            vector.set(1, Float.intBitsToFloat(0x7fc00001));
            vector.setValueCount(2);
            Block block = convert(vector, "float");
            assertThat(Float.floatToRawIntBits(REAL.getFloat(block, 0))).isEqualTo(Float.floatToRawIntBits(-0.0f));
            assertThat(Float.floatToRawIntBits(REAL.getFloat(block, 1))).isEqualTo(0x7fc00001);
        }
    }

    @Test
    void timestampsCarryUtcAndTimesArePicoseconds()
    {
        try (TimeStampMilliTZVector ts = new TimeStampMilliTZVector("ts", allocator, "UTC");
                TimeNanoVector time = new TimeNanoVector("t", allocator)) {
            ts.allocateNew(1);
            ts.set(0, -62135596800000L); // 0001-01-01T00:00:00Z
            ts.setValueCount(1);
            time.allocateNew(1);
            time.set(0, 86_399_999_999_999L);
            time.setValueCount(1);
            assertThat(unpackMillisUtc(TIMESTAMP_TZ_MILLIS.getLong(convert(ts, "timestamp"), 0))).isEqualTo(-62135596800000L);
            assertThat(TIME_NANOS.getLong(convert(time, "time"), 0)).isEqualTo(86_399_999_999_999_000L);
        }
    }

    @Test
    void uuidBytesKeepTheirOrder()
    {
        UUID uuid = java.util.UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");
        try (FixedSizeBinaryVector vector = new FixedSizeBinaryVector("u", allocator, 16)) {
            vector.allocateNew(1);
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
            vector.set(0, bytes.array());
            vector.setValueCount(1);
            assertThat(trinoUuidToJavaUuid(UUID.getSlice(convert(vector, "uuid"), 0))).isEqualTo(uuid);
        }
    }

    @Test
    void decimalTextKeepsItsScale()
    {
        try (VarCharVector vector = new VarCharVector("d", allocator)) {
            vector.allocateNew(3);
            vector.setSafe(0, "12345e-2".getBytes(UTF_8));
            vector.setSafe(1, "0e-2".getBytes(UTF_8));
            vector.setSafe(2, "1e10".getBytes(UTF_8));
            vector.setValueCount(3);
            Block block = convert(vector, "decimal");
            assertThat(VARCHAR.getSlice(block, 0).toStringUtf8()).isEqualTo("123.45");
            assertThat(VARCHAR.getSlice(block, 1).toStringUtf8()).isEqualTo("0.00");
            assertThat(VARCHAR.getSlice(block, 2).toStringUtf8()).isEqualTo("1E+10");
        }
    }

    @Test
    void durationIsARow()
    {
        try (IntervalMonthDayNanoVector vector = new IntervalMonthDayNanoVector("d", allocator)) {
            vector.allocateNew(2);
            vector.set(0, -14, 25, 18_367_008_009_010L);
            vector.setNull(1);
            vector.setValueCount(2);
            Block block = convert(vector, "duration");
            List<Block> fields = RowBlock.getRowFieldsFromBlock(block);
            assertThat(INTEGER.getInt(fields.get(0), 0)).isEqualTo(-14);
            assertThat(INTEGER.getInt(fields.get(1), 0)).isEqualTo(25);
            assertThat(BIGINT.getLong(fields.get(2), 0)).isEqualTo(18_367_008_009_010L);
            assertThat(block.isNull(1)).isTrue();
        }
    }

    @Test
    void aNullVectorDropsTheElementsArrowKeepsUnderIt()
    {
        Field element = new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null);
        try (FixedSizeListVector vector = new FixedSizeListVector("v", allocator, FieldType.nullable(new ArrowType.FixedSizeList(2)), null)) {
            vector.initializeChildrenFromFields(List.of(element));
            vector.allocateNew();
            Float4Vector values = (Float4Vector) vector.getDataVector();
            for (int i = 0; i < 6; i++) {
                values.setSafe(i, i);
            }
            values.setValueCount(6);
            vector.setNotNull(0);
            vector.setNull(1);
            vector.setNotNull(2);
            vector.setValueCount(3);
            Block block = convert(vector, "vector<float, 2>");
            assertThat(block.isNull(1)).isTrue();
            Block third = ((ArrayBlock) block.getUnderlyingValueBlock()).getArray(2);
            assertThat(third.getPositionCount()).isEqualTo(2);
            assertThat(REAL.getFloat(third, 0)).isEqualTo(4f);
            assertThat(new ArrayType(REAL)).isEqualTo(mapping.map(withCql(vector.getField(), "vector<float, 2>")).type().orElseThrow());
        }
    }

    @Test
    void aNullRowHasNullFieldsWhateverArrowHolds()
    {
        try (StructVector vector = StructVector.empty("s", allocator)) {
            IntVector zip = vector.addOrGet("zip", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
            vector.allocateNew();
            zip.setSafe(0, 1);
            zip.setSafe(1, 2); // a value under a null struct, which Trino's RowBlock refuses
            vector.setIndexDefined(0);
            vector.setNull(1);
            zip.setValueCount(2);
            vector.setValueCount(2);
            Block block = convert(vector, "frozen<address>");
            assertThat(block.isNull(1)).isTrue();
            assertThat(INTEGER.getInt(RowBlock.getRowFieldsFromBlock(block).get(0), 0)).isEqualTo(1);
            Type type = mapping.map(withCql(vector.getField(), "frozen<address>")).type().orElseThrow();
            assertThat(type).isEqualTo(RowType.from(List.of(RowType.field("zip", INTEGER))));
        }
    }

    @Test
    void aUdtsInetAndDecimalFieldsConvertExactly()
    {
        try (StructVector vector = StructVector.empty("s", allocator)) {
            VarCharVector ip = vector.addOrGet("ip", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "inet")), VarCharVector.class);
            VarCharVector amount = vector.addOrGet("amount", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "decimal")), VarCharVector.class);
            vector.allocateNew();
            ip.setSafe(0, "192.0.2.1".getBytes(UTF_8));
            amount.setSafe(0, "12345e-2".getBytes(UTF_8));
            vector.setIndexDefined(0);
            ip.setValueCount(1);
            amount.setValueCount(1);
            vector.setValueCount(1);
            ColumnMapping columnMapping = ipMapping.map(withCql(vector.getField(), "frozen<spot>"));
            Block block = ArrowBlocks.toBlock(vector, columnMapping, "s");
            List<Block> fields = RowBlock.getRowFieldsFromBlock(block);
            // Trino holds IPv4 as the IPv4-mapped IPv6 address.
            assertThat(TestingIpAddressType.IPADDRESS.getSlice(fields.get(0), 0).getBytes())
                    .containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1);
            assertThat(VARCHAR.getSlice(fields.get(1), 0).toStringUtf8()).isEqualTo("123.45");
        }
    }

    /**
     * Decimal and inet text is parsed from the Arrow buffer in place: the
     * conversion of a column allocates its output (the block's arrays) and
     * no object per value. Measured with the JVM's per-thread allocation
     * counter after warming up; the String, byte[] and BigDecimal or
     * InetAddress per value this replaced cost about 400 bytes a row.
     */
    @Test
    void decimalAndInetTextConvertWithNoObjectPerValue()
    {
        int rows = 4096;
        try (VarCharVector decimals = new VarCharVector("d", allocator);
                VarCharVector addresses = new VarCharVector("a", allocator)) {
            decimals.allocateNew(rows);
            addresses.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                decimals.setSafe(i, ((i % 2 == 0 ? "-" : "") + (1_000_003L * i) + "e-" + (i % 9)).getBytes(UTF_8));
                addresses.setSafe(i, (i % 2 == 0 ? "192.0.%d.%d".formatted(i / 256 % 256, i % 256) : "2001:db8::%x:%x".formatted(i, i * 7)).getBytes(UTF_8));
            }
            decimals.setValueCount(rows);
            addresses.setValueCount(rows);
            ColumnMapping decimal = ipMapping.map(withCql(decimals.getField(), "decimal"));
            ColumnMapping inet = ipMapping.map(withCql(addresses.getField(), "inet"));
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long id = Thread.currentThread().threadId();
            for (int warm = 0; warm < 20; warm++) {
                ArrowBlocks.toBlock(decimals, decimal, "d");
                ArrowBlocks.toBlock(addresses, inet, "a");
            }
            long before = threads.getThreadAllocatedBytes(id);
            Block decimalBlock = ArrowBlocks.toBlock(decimals, decimal, "d");
            long decimalBytes = threads.getThreadAllocatedBytes(id) - before;
            before = threads.getThreadAllocatedBytes(id);
            Block inetBlock = ArrowBlocks.toBlock(addresses, inet, "a");
            long inetBytes = threads.getThreadAllocatedBytes(id) - before;
            assertThat(VARCHAR.getSlice(decimalBlock, 3).toStringUtf8()).isEqualTo(new java.math.BigDecimal("3000009e-3").toString());
            assertThat(inetBlock.getPositionCount()).isEqualTo(rows);
            // Per row: the text copied in bulk (~14 bytes), 4 bytes of offset, and the output (its text and
            // offset for decimal, 16 bytes for inet): under 64. A String per value alone is 40 bytes and more.
            assertThat(decimalBytes / rows).as("bytes allocated per decimal row (%d in all)", decimalBytes).isLessThan(64);
            assertThat(inetBytes / rows).as("bytes allocated per inet row (%d in all)", inetBytes).isLessThan(64);
        }
    }

    @Test
    void textThatIsNoDecimalOrAddressFailsNamingColumnRowAndValue()
    {
        try (VarCharVector decimals = new VarCharVector("d", allocator);
                VarCharVector addresses = new VarCharVector("a", allocator)) {
            decimals.allocateNew(2);
            decimals.setSafe(0, "1e1".getBytes(UTF_8));
            decimals.setSafe(1, "1.5".getBytes(UTF_8));
            decimals.setValueCount(2);
            addresses.allocateNew(2);
            addresses.setNull(0);
            addresses.setSafe(1, "1.2.3".getBytes(UTF_8));
            addresses.setValueCount(2);
            assertThatThrownBy(() -> ArrowBlocks.toBlock(decimals, ipMapping.map(withCql(decimals.getField(), "decimal")), "d"))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_BAD_DATA.toErrorCode()))
                    .hasMessage("column d, row 1: decimal \"1.5\" does not parse");
            assertThatThrownBy(() -> ArrowBlocks.toBlock(addresses, ipMapping.map(withCql(addresses.getField(), "inet")), "a"))
                    .isInstanceOf(TrinoException.class)
                    .hasMessage("column a, row 1: inet \"1.2.3\" does not parse");
        }
    }

    @Test
    void arrowNullIsReportedUnmapped()
    {
        Field field = new Field("e", new FieldType(true, ArrowType.Null.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "'org.apache.cassandra.db.marshal.EmptyType'")), null);
        ColumnMapping columnMapping = mapping.map(field);
        assertThat(columnMapping.isSupported()).isFalse();
        assertThat(columnMapping.unsupported()).hasValueSatisfying(why -> assertThat(why).contains("EmptyType").contains("always null"));
    }
}
