package io.sstableflight.trino;

import io.airlift.slice.Slices;
import io.trino.spi.TrinoException;
import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.Block;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.Int128ArrayBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.MapBlock;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.ShortArrayBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.MapType;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_BAD_DATA;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Arrow vectors to Trino blocks, a column at a time: fixed-width buffers are
 * copied in bulk into the arrays Trino's blocks wrap, Utf8 and Binary copy
 * their offsets and data once, and List, FixedSizeList, Map and Struct
 * become ArrayBlock, MapBlock and RowBlock over their converted children.
 * Values are only touched one by one where Trino's representation differs
 * (booleans are bits in Arrow, timestamps carry a zone, times are
 * picoseconds, inet and decimal arrive as text), and even then no object
 * is made per value: inet and decimal text is parsed from the Arrow buffer
 * in place (InetText, DecimalText, DecimalScaling).
 *
 * Trino requires a null row's fields to be null and a null array or map to
 * have no entries; Arrow requires neither, so a parent's nulls are passed
 * down and entries under nulls are dropped.
 */
final class ArrowBlocks
{
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private ArrowBlocks() {}

    /** The block of a whole vector, as its mapping says; {@code column} names it in errors. */
    static Block toBlock(FieldVector vector, ColumnMapping mapping, String column)
    {
        return toBlock(vector, mapping, column, null);
    }

    private static Block toBlock(FieldVector vector, ColumnMapping mapping, String column, boolean[] parentNull)
    {
        if (vector instanceof ExtensionTypeVector<?> extension) {
            vector = extension.getUnderlyingVector();
        }
        int n = vector.getValueCount();
        Optional<boolean[]> nulls = nulls(vector, parentNull);
        return switch (mapping.kind()) {
            case BOOLEAN -> new ByteArrayBlock(n, nulls, bits(vector.getDataBuffer(), n));
            case TINYINT -> new ByteArrayBlock(n, nulls, bytes(vector.getDataBuffer(), n));
            case SMALLINT -> new ShortArrayBlock(n, nulls, shorts(vector.getDataBuffer(), n));
            case INTEGER, REAL, DATE -> new IntArrayBlock(n, nulls, ints(vector.getDataBuffer(), n));
            case BIGINT, DOUBLE -> new LongArrayBlock(n, nulls, longs(vector.getDataBuffer(), n));
            case TIMESTAMP -> new LongArrayBlock(n, nulls, timestamps(vector.getDataBuffer(), n, nulls, column));
            case TIME -> new LongArrayBlock(n, nulls, picos(vector.getDataBuffer(), n, nulls));
            case UUID -> new Int128ArrayBlock(n, nulls, longs(vector.getDataBuffer(), 2 * n));
            case VARCHAR, VARBINARY -> variableWidth((BaseVariableWidthVector) vector, n, nulls);
            case DECIMAL_TEXT -> decimals((BaseVariableWidthVector) vector, n, nulls, column);
            case DECIMAL -> scaledDecimals((BaseVariableWidthVector) vector, mapping, n, nulls, column);
            case INET -> new Int128ArrayBlock(n, nulls, addresses((BaseVariableWidthVector) vector, n, nulls, column));
            case DURATION -> durations(vector.getDataBuffer(), n, nulls);
            case ARRAY -> array((ListVector) vector, mapping, column, n, nulls);
            case VECTOR -> vector((FixedSizeListVector) vector, mapping, column, n, nulls);
            case MAP -> map((MapVector) vector, mapping, column, n, nulls);
            case ROW -> row((StructVector) vector, mapping, column, n, nulls);
            case UNSUPPORTED -> throw new IllegalStateException("column %s is not mapped: %s".formatted(column, mapping.unsupported().orElseThrow()));
        };
    }

    private static Optional<boolean[]> nulls(FieldVector vector, boolean[] parentNull)
    {
        int n = vector.getValueCount();
        if (vector.getNullCount() == 0 && parentNull == null) {
            return Optional.empty();
        }
        boolean[] isNull = new boolean[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            isNull[i] = vector.isNull(i) || (parentNull != null && parentNull[i]);
            any |= isNull[i];
        }
        return any ? Optional.of(isNull) : Optional.empty();
    }

    private static ByteBuffer view(ArrowBuf buffer, long bytes)
    {
        return buffer.nioBuffer(0, Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static byte[] bits(ArrowBuf data, int n)
    {
        byte[] values = new byte[n];
        for (int i = 0; i < n; i++) {
            values[i] = (byte) ((data.getByte(i >>> 3) >>> (i & 7)) & 1);
        }
        return values;
    }

    private static byte[] bytes(ArrowBuf data, int n)
    {
        byte[] values = new byte[n];
        data.getBytes(0, values);
        return values;
    }

    private static short[] shorts(ArrowBuf data, int n)
    {
        short[] values = new short[n];
        view(data, 2L * n).asShortBuffer().get(values);
        return values;
    }

    private static int[] ints(ArrowBuf data, int n)
    {
        int[] values = new int[n];
        view(data, 4L * n).asIntBuffer().get(values);
        return values;
    }

    private static long[] longs(ArrowBuf data, int n)
    {
        long[] values = new long[n];
        view(data, 8L * n).asLongBuffer().get(values);
        return values;
    }

    private static long[] timestamps(ArrowBuf data, int n, Optional<boolean[]> nulls, String column)
    {
        long[] values = longs(data, n);
        boolean[] isNull = nulls.orElse(null);
        for (int i = 0; i < n; i++) {
            if (isNull != null && isNull[i]) {
                values[i] = 0;
                continue;
            }
            try {
                values[i] = packDateTimeWithZone(values[i], UTC_KEY);
            }
            catch (IllegalArgumentException e) {
                // CQL allows any int64 of milliseconds; Trino's TIMESTAMP WITH TIME ZONE
                // holds ±2^51. Failing beats a wrapped instant.
                throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "column %s, row %d: timestamp %d ms is outside Trino's TIMESTAMP(3) WITH TIME ZONE range".formatted(column, i, values[i]), e);
            }
        }
        return values;
    }

    private static long[] picos(ArrowBuf data, int n, Optional<boolean[]> nulls)
    {
        long[] values = longs(data, n);
        boolean[] isNull = nulls.orElse(null);
        for (int i = 0; i < n; i++) {
            // Nanoseconds of a day times 1000 stay below 2^57: no overflow.
            values[i] = (isNull != null && isNull[i]) ? 0 : values[i] * 1000;
        }
        return values;
    }

    private static int[] offsets(ArrowBuf offsets, int n)
    {
        int[] values = new int[n + 1];
        view(offsets, 4L * (n + 1)).asIntBuffer().get(values);
        return values;
    }

    private static Block variableWidth(BaseVariableWidthVector vector, int n, Optional<boolean[]> nulls)
    {
        if (n == 0) {
            return new VariableWidthBlock(0, Slices.EMPTY_SLICE, new int[1], Optional.empty());
        }
        int[] offsets = offsets(vector.getOffsetBuffer(), n);
        int start = offsets[0];
        byte[] data = new byte[offsets[n] - start];
        vector.getDataBuffer().getBytes(start, data);
        if (start != 0) {
            for (int i = 0; i <= n; i++) {
                offsets[i] -= start;
            }
        }
        return new VariableWidthBlock(n, Slices.wrappedBuffer(data), offsets, nulls);
    }

    private static Block decimals(BaseVariableWidthVector vector, int n, Optional<boolean[]> nulls, String column)
    {
        boolean[] isNull = nulls.orElse(null);
        int[] offsets = new int[n + 1];
        if (n == 0) {
            return new VariableWidthBlock(0, Slices.EMPTY_SLICE, offsets, Optional.empty());
        }
        int[] in = offsets(vector.getOffsetBuffer(), n);
        byte[] text = bytes(vector, in, n);
        byte[] out = new byte[text.length + DecimalText.MAX_GROWTH * n];
        DecimalText.Parsed parsed = new DecimalText.Parsed();
        for (int i = 0; i < n; i++) {
            int end = offsets[i];
            if (isNull == null || !isNull[i]) {
                parse(parsed, text, in[i] - in[0], in[i + 1] - in[0], column, i);
                end = DecimalText.rewrite(parsed, text, out, end);
            }
            offsets[i + 1] = end;
        }
        return new VariableWidthBlock(n, Slices.wrappedBuffer(out, 0, offsets[n]), offsets, nulls);
    }

    private static Block scaledDecimals(BaseVariableWidthVector vector, ColumnMapping mapping, int n, Optional<boolean[]> nulls, String column)
    {
        DecimalType type = (DecimalType) mapping.type().orElseThrow();
        RoundingMode rounding = mapping.rounding().orElseThrow();
        int width = type.isShort() ? 1 : 2;
        long[] values = new long[width * n];
        if (n > 0) {
            boolean[] isNull = nulls.orElse(null);
            int[] offsets = offsets(vector.getOffsetBuffer(), n);
            byte[] text = bytes(vector, offsets, n);
            int base = offsets[0];
            DecimalText.Parsed parsed = new DecimalText.Parsed();
            for (int i = 0; i < n; i++) {
                if (isNull != null && isNull[i]) {
                    continue;
                }
                int start = offsets[i] - base;
                int end = offsets[i + 1] - base;
                parse(parsed, text, start, end, column, i);
                int status = DecimalScaling.rescale(parsed, text, type.getPrecision(), type.getScale(), rounding, values, width * i);
                if (status != DecimalScaling.OK) {
                    throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "column %s, row %d: %s".formatted(column, i, decimalFailure(status, text, start, end, type)));
                }
            }
        }
        return type.isShort() ? new LongArrayBlock(n, nulls, values) : new Int128ArrayBlock(n, nulls, values);
    }

    private static void parse(DecimalText.Parsed parsed, byte[] text, int start, int end, String column, int row)
    {
        if (!parsed.parse(text, start, end)) {
            throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "column %s, row %d: decimal \"%s\" does not parse".formatted(column, row, text(text, start, end)));
        }
    }

    /** Why a decimal does not fit its column, the value as BigDecimal prints it. */
    private static String decimalFailure(int status, byte[] data, int start, int end, DecimalType type)
    {
        String text = text(data, start, end);
        // A value of over 200 characters is shown cut, as the server sent it, not misread as a shorter number.
        String value = end - start > text.length() ? "\"%s...\"".formatted(text) : new BigDecimal(text).toString();
        if (status == DecimalScaling.OVERFLOW) {
            return "decimal %s does not fit %s, which holds %d digits before the point (sstable-flight.decimal-precision minus decimal-scale)"
                    .formatted(value, type.getDisplayName(), type.getPrecision() - type.getScale());
        }
        return "decimal %s has more digits after the point than %s holds (%d), and sstable-flight.decimal-rounding-mode is UNNECESSARY: raise decimal-scale or choose a rounding mode"
                .formatted(value, type.getDisplayName(), type.getScale());
    }

    private static long[] addresses(BaseVariableWidthVector vector, int n, Optional<boolean[]> nulls, String column)
    {
        boolean[] isNull = nulls.orElse(null);
        long[] values = new long[2 * n];
        if (n == 0) {
            return values;
        }
        int[] offsets = offsets(vector.getOffsetBuffer(), n);
        byte[] text = bytes(vector, offsets, n);
        int base = offsets[0];
        byte[] address = new byte[16];
        for (int i = 0; i < n; i++) {
            if (isNull != null && isNull[i]) {
                continue;
            }
            if (!InetText.parse(text, offsets[i] - base, offsets[i + 1] - base, address)) {
                throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "column %s, row %d: inet \"%s\" does not parse".formatted(column, i, text(text, offsets[i] - base, offsets[i + 1] - base)));
            }
            // Int128 blocks hold the 16 bytes in order as two little-endian longs (as UUID).
            values[2 * i] = (long) LONG_LE.get(address, 0);
            values[2 * i + 1] = (long) LONG_LE.get(address, 8);
        }
        return values;
    }

    /** The data bytes of the n values that {@code offsets} bound, in one bulk copy. */
    private static byte[] bytes(BaseVariableWidthVector vector, int[] offsets, int n)
    {
        byte[] data = new byte[offsets[n] - offsets[0]];
        vector.getDataBuffer().getBytes(offsets[0], data);
        return data;
    }

    /** The text of a value, for an error message. */
    private static String text(byte[] data, int start, int end)
    {
        return new String(data, start, Math.min(end - start, 200), UTF_8);
    }

    private static Block durations(ArrowBuf data, int n, Optional<boolean[]> nulls)
    {
        // MonthDayNano: int32 months, int32 days, int64 nanoseconds per value, little-endian.
        ByteBuffer view = view(data, 16L * n);
        int[] months = new int[n];
        int[] days = new int[n];
        long[] nanos = new long[n];
        for (int i = 0; i < n; i++) {
            months[i] = view.getInt(16 * i);
            days[i] = view.getInt(16 * i + 4);
            nanos[i] = view.getLong(16 * i + 8);
        }
        Block[] fields = {
                new IntArrayBlock(n, nulls, months),
                new IntArrayBlock(n, nulls, days),
                new LongArrayBlock(n, nulls, nanos)};
        return RowBlock.fromNotNullSuppressedFieldBlocks(n, nulls, fields);
    }

    private static Block array(ListVector vector, ColumnMapping mapping, String column, int n, Optional<boolean[]> nulls)
    {
        int[] offsets = n == 0 ? new int[1] : offsets(vector.getOffsetBuffer(), n);
        Block elements = toBlock(vector.getDataVector(), mapping.child(0), column + "[]", null);
        Entries entries = Entries.dropUnderNulls(offsets, nulls, elements.getPositionCount());
        return ArrayBlock.fromElementBlock(n, nulls, entries.offsets(), entries.select(elements));
    }

    private static Block vector(FixedSizeListVector vector, ColumnMapping mapping, String column, int n, Optional<boolean[]> nulls)
    {
        int size = vector.getListSize();
        int[] offsets = new int[n + 1];
        for (int i = 0; i <= n; i++) {
            offsets[i] = i * size;
        }
        Block elements = toBlock(vector.getDataVector(), mapping.child(0), column + "[]", null);
        // A null vector still occupies its n elements in Arrow.
        Entries entries = Entries.dropUnderNulls(offsets, nulls, elements.getPositionCount());
        return ArrayBlock.fromElementBlock(n, nulls, entries.offsets(), entries.select(elements));
    }

    private static Block map(MapVector vector, ColumnMapping mapping, String column, int n, Optional<boolean[]> nulls)
    {
        int[] offsets = n == 0 ? new int[1] : offsets(vector.getOffsetBuffer(), n);
        StructVector entriesVector = (StructVector) vector.getDataVector();
        Block keys = toBlock((FieldVector) entriesVector.getChildByOrdinal(0), mapping.child(0), column + ".key", null);
        Block values = toBlock((FieldVector) entriesVector.getChildByOrdinal(1), mapping.child(1), column + ".value", null);
        Entries entries = Entries.dropUnderNulls(offsets, nulls, keys.getPositionCount());
        MapType type = (MapType) mapping.type().orElseThrow();
        return MapBlock.fromKeyValueBlock(nulls, entries.offsets(), entries.select(keys), entries.select(values), type);
    }

    private static Block row(StructVector vector, ColumnMapping mapping, String column, int n, Optional<boolean[]> nulls)
    {
        Block[] fields = new Block[mapping.children().size()];
        boolean[] isNull = nulls.orElse(null);
        for (int i = 0; i < fields.length; i++) {
            FieldVector child = (FieldVector) vector.getChildByOrdinal(i);
            fields[i] = toBlock(child, mapping.child(i), column + "." + child.getName(), isNull);
        }
        return RowBlock.fromNotNullSuppressedFieldBlocks(n, nulls, fields);
    }
}
