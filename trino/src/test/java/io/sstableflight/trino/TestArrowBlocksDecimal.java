package io.sstableflight.trino;

import io.trino.spi.TrinoException;
import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.Block;
import io.trino.spi.block.Int128ArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RowBlock;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.RowType;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_BAD_DATA;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decimal columns with {@code sstable-flight.decimal-mapping=DECIMAL}: the
 * server's text becomes Trino's DECIMAL(p, s), short (a long per value)
 * or long (Int128), at the top level and nested, rounded by the mode; a
 * value that does not fit fails naming column, row and value, never a null
 * or a wrong number. The allocator must be empty after each test.
 */
class TestArrowBlocksDecimal
        extends CheckedAllocatorTest
{
    private static Field decimalField(String name)
    {
        return new Field(name, new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "decimal")), null);
    }

    private static TypeMapping mapping(int precision, int scale, RoundingMode rounding)
    {
        return new TypeMapping(VARCHAR, new TypeOperators(), Optional.of(createDecimalType(precision, scale)), rounding);
    }

    private VarCharVector decimals(String name, String... values)
    {
        VarCharVector vector = new VarCharVector(decimalField(name), allocator);
        vector.allocateNew(values.length);
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                vector.setNull(i);
            }
            else {
                vector.setSafe(i, values[i].getBytes(UTF_8));
            }
        }
        vector.setValueCount(values.length);
        return vector;
    }

    private static Block convert(FieldVector vector, TypeMapping mapping)
    {
        ColumnMapping column = mapping.map(vector.getField());
        assertThat(column.kind()).isEqualTo(ColumnMapping.Kind.DECIMAL);
        return ArrowBlocks.toBlock(vector, column, vector.getName());
    }

    private static List<BigDecimal> read(DecimalType type, Block block)
    {
        BigDecimal[] values = new BigDecimal[block.getPositionCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = block.isNull(i) ? null : Decimals.readBigDecimal(type, block, i);
        }
        return Arrays.asList(values);
    }

    @Test
    void shortAndLongDecimalsRoundedByTheMode()
    {
        String[] values = {"12345e-2", null, "-1005e-3", "12e2", "0e-7", "-1e-21", "25e-1"};
        try (VarCharVector vector = decimals("d", values)) {
            Block shortBlock = convert(vector, mapping(18, 2, RoundingMode.HALF_EVEN));
            assertThat(shortBlock.getUnderlyingValueBlock()).isInstanceOf(LongArrayBlock.class);
            assertThat(read(createDecimalType(18, 2), shortBlock)).containsExactly(
                    new BigDecimal("123.45"), null, new BigDecimal("-1.00"), new BigDecimal("1200.00"), new BigDecimal("0.00"), new BigDecimal("0.00"), new BigDecimal("2.50"));

            Block longBlock = convert(vector, mapping(38, 0, RoundingMode.HALF_UP));
            assertThat(longBlock.getUnderlyingValueBlock()).isInstanceOf(Int128ArrayBlock.class);
            assertThat(read(createDecimalType(38, 0), longBlock)).containsExactly(
                    new BigDecimal("123"), null, new BigDecimal("-1"), new BigDecimal("1200"), new BigDecimal("0"), new BigDecimal("0"), new BigDecimal("3"));

            Block up = convert(vector, mapping(38, 0, RoundingMode.UP));
            assertThat(read(createDecimalType(38, 0), up)).containsExactly(
                    new BigDecimal("124"), null, new BigDecimal("-2"), new BigDecimal("1200"), new BigDecimal("0"), new BigDecimal("-1"), new BigDecimal("3"));
        }
    }

    @Test
    void thirtyEightDigitsFitAndThirtyNineDoNot()
    {
        String nines = "9".repeat(38);
        try (VarCharVector whole = decimals("d", nines + "e0", "-" + nines + "e0");
                VarCharVector fraction = decimals("d", "-" + nines + "e-38", "1e-38");
                VarCharVector beyond = decimals("d", "1e0", "1" + "0".repeat(38) + "e0")) {
            assertThat(read(createDecimalType(38, 0), convert(whole, mapping(38, 0, RoundingMode.UNNECESSARY))))
                    .containsExactly(new BigDecimal(nines), new BigDecimal("-" + nines));
            assertThat(read(createDecimalType(38, 38), convert(fraction, mapping(38, 38, RoundingMode.UNNECESSARY))))
                    .containsExactly(new BigDecimal("-0." + nines), new BigDecimal("1e-38"));
            assertThatThrownBy(() -> convert(beyond, mapping(38, 0, RoundingMode.HALF_UP)))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(SSTABLE_FLIGHT_BAD_DATA.toErrorCode()))
                    .hasMessage("column d, row 1: decimal 1" + "0".repeat(38) + " does not fit decimal(38,0), which holds 38 digits before the point (sstable-flight.decimal-precision minus decimal-scale)");
        }
    }

    @Test
    void aValueThatDoesNotFitFailsNamingColumnRowAndValue()
    {
        try (VarCharVector vector = decimals("price", "1e0", null, "1005e-3", "99995e-3")) {
            assertThatThrownBy(() -> convert(vector, mapping(38, 2, RoundingMode.UNNECESSARY)))
                    .isInstanceOf(TrinoException.class)
                    .hasMessage("column price, row 2: decimal 1.005 has more digits after the point than decimal(38,2) holds (2), and sstable-flight.decimal-rounding-mode is UNNECESSARY: raise decimal-scale or choose a rounding mode");
            // 99.995 rounds up to 100.00, one digit more than DECIMAL(4, 2) holds.
            assertThatThrownBy(() -> convert(vector, mapping(4, 2, RoundingMode.HALF_UP)))
                    .isInstanceOf(TrinoException.class)
                    .hasMessage("column price, row 3: decimal 99.995 does not fit decimal(4,2), which holds 2 digits before the point (sstable-flight.decimal-precision minus decimal-scale)");
            assertThat(read(createDecimalType(4, 2), convert(vector, mapping(4, 2, RoundingMode.DOWN))))
                    .containsExactly(new BigDecimal("1.00"), null, new BigDecimal("1.00"), new BigDecimal("99.99"));
        }
        try (VarCharVector vector = decimals("d", "1.5")) {
            assertThatThrownBy(() -> convert(vector, mapping(38, 2, RoundingMode.HALF_UP)))
                    .isInstanceOf(TrinoException.class)
                    .hasMessage("column d, row 0: decimal \"1.5\" does not parse");
        }
    }

    @Test
    void nestedDecimalsFollowTheSameMapping()
    {
        Field element = decimalField("item");
        Field listField = new Field("l", new FieldType(true, ArrowType.List.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "list<decimal>")), List.of(element));
        try (ListVector list = (ListVector) listField.createVector(allocator);
                StructVector udt = StructVector.empty("s", allocator)) {
            list.allocateNew();
            VarCharVector items = (VarCharVector) list.getDataVector();
            items.setSafe(0, "15e-1".getBytes(UTF_8));
            items.setSafe(1, "123456789e0".getBytes(UTF_8));
            items.setValueCount(2);
            list.startNewValue(0);
            list.endValue(0, 2);
            list.setValueCount(1);

            VarCharVector amount = udt.addOrGet("amount", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "decimal")), VarCharVector.class);
            udt.allocateNew();
            amount.setSafe(0, "-25e-1".getBytes(UTF_8));
            udt.setIndexDefined(0);
            amount.setValueCount(1);
            udt.setValueCount(1);

            TypeMapping typeMapping = mapping(10, 0, RoundingMode.HALF_EVEN);
            ColumnMapping listMapping = typeMapping.map(list.getField());
            assertThat(listMapping.type()).contains(new ArrayType(createDecimalType(10, 0)));
            Block elements = ((ArrayBlock) ArrowBlocks.toBlock(list, listMapping, "l").getUnderlyingValueBlock()).getArray(0);
            assertThat(read(createDecimalType(10, 0), elements)).containsExactly(new BigDecimal("2"), new BigDecimal("123456789"));

            ColumnMapping udtMapping = typeMapping.map(new Field("s", new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "frozen<money>")), udt.getField().getChildren()));
            assertThat(udtMapping.type()).contains(RowType.from(List.of(RowType.field("amount", createDecimalType(10, 0)))));
            Block fields = RowBlock.getRowFieldsFromBlock(ArrowBlocks.toBlock(udt, udtMapping, "s")).getFirst();
            assertThat(read(createDecimalType(10, 0), fields)).containsExactly(new BigDecimal("-2"));

            // A nested value that does not fit names the path to it.
            assertThatThrownBy(() -> ArrowBlocks.toBlock(list, mapping(5, 0, RoundingMode.HALF_EVEN).map(list.getField()), "l"))
                    .isInstanceOf(TrinoException.class)
                    .hasMessageStartingWith("column l[], row 1: decimal 123456789 does not fit decimal(5,0)");
        }
    }

    /**
     * As decimal text (TestArrowBlocks), a DECIMAL column converts with no
     * object per value: its output array, the text copied in bulk and its
     * offsets, measured with the JVM's per-thread allocation counter after
     * warming up.
     */
    @Test
    void decimalsConvertWithNoObjectPerValue()
    {
        int rows = 4096;
        String[] values = new String[rows];
        for (int i = 0; i < rows; i++) {
            values[i] = (i % 2 == 0 ? "-" : "") + (1_000_003L * i) + "e-" + (i % 9);
        }
        try (VarCharVector vector = decimals("d", values)) {
            ColumnMapping shortDecimal = mapping(18, 4, RoundingMode.HALF_UP).map(vector.getField());
            ColumnMapping longDecimal = mapping(38, 4, RoundingMode.HALF_UP).map(vector.getField());
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long id = Thread.currentThread().threadId();
            for (int warm = 0; warm < 20; warm++) {
                ArrowBlocks.toBlock(vector, shortDecimal, "d");
                ArrowBlocks.toBlock(vector, longDecimal, "d");
            }
            long before = threads.getThreadAllocatedBytes(id);
            Block shortBlock = ArrowBlocks.toBlock(vector, shortDecimal, "d");
            long shortBytes = threads.getThreadAllocatedBytes(id) - before;
            before = threads.getThreadAllocatedBytes(id);
            Block longBlock = ArrowBlocks.toBlock(vector, longDecimal, "d");
            long longBytes = threads.getThreadAllocatedBytes(id) - before;
            assertThat(Decimals.readBigDecimal(createDecimalType(18, 4), shortBlock, 3)).isEqualTo(new BigDecimal("3000.0090"));
            assertThat(Decimals.readBigDecimal(createDecimalType(38, 4), longBlock, 3)).isEqualTo(new BigDecimal("3000.0090"));
            // Per row: ~14 bytes of text, 4 of offset, and 8 (short) or 16 (long) of output; a BigDecimal per value alone is 40 and more.
            assertThat(shortBytes / rows).as("bytes allocated per short decimal row (%d in all)", shortBytes).isLessThan(40);
            assertThat(longBytes / rows).as("bytes allocated per long decimal row (%d in all)", longBytes).isLessThan(48);
        }
    }
}
