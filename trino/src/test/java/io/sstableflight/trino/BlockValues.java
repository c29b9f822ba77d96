package io.sstableflight.trino;

import io.trino.spi.block.Block;
import io.trino.spi.block.SqlMap;
import io.trino.spi.block.SqlRow;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.TIME_NANOS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.trinoUuidToJavaUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * One value of a Trino block as the Java value Trino's JDBC driver would
 * give for it (String, Long, BigDecimal, byte[], List for arrays and rows, Map for
 * maps, LocalDate/LocalTime/ZonedDateTime for temporal types, the address
 * text for IPADDRESS), so the integration suite's Canon judges blocks and
 * JDBC results alike. It reads through Trino's own type accessors, steered
 * by the column's mapping (the IPADDRESS type lives in the engine, so its
 * kind says what a block holds).
 */
final class BlockValues
{
    private BlockValues() {}

    static Object read(ColumnMapping mapping, Block block, int position)
    {
        if (block.isNull(position)) {
            return null;
        }
        return switch (mapping.kind()) {
            case BOOLEAN -> BOOLEAN.getBoolean(block, position);
            case TINYINT -> TINYINT.getByte(block, position);
            case SMALLINT -> SMALLINT.getShort(block, position);
            case INTEGER -> INTEGER.getInt(block, position);
            case BIGINT -> BIGINT.getLong(block, position);
            case REAL -> REAL.getFloat(block, position);
            case DOUBLE -> DOUBLE.getDouble(block, position);
            case VARCHAR, DECIMAL_TEXT -> VARCHAR.getSlice(block, position).toStringUtf8();
            case DECIMAL -> Decimals.readBigDecimal((DecimalType) mapping.type().orElseThrow(), block, position);
            case VARBINARY -> VARBINARY.getSlice(block, position).getBytes();
            case DATE -> LocalDate.ofEpochDay(DATE.getInt(block, position));
            case TIME -> LocalTime.ofNanoOfDay(TIME_NANOS.getLong(block, position) / 1000);
            case TIMESTAMP -> Instant.ofEpochMilli(unpackMillisUtc(TIMESTAMP_TZ_MILLIS.getLong(block, position))).atZone(ZoneOffset.UTC);
            case UUID -> trinoUuidToJavaUuid(UUID.getSlice(block, position));
            // Both are Int128 blocks whose slice is the 16 bytes in order.
            case INET -> address(UUID.getSlice(block, position).getBytes());
            case DURATION -> row(List.of(
                    ColumnMapping.of(ColumnMapping.Kind.INTEGER, INTEGER, List.of()),
                    ColumnMapping.of(ColumnMapping.Kind.INTEGER, INTEGER, List.of()),
                    ColumnMapping.of(ColumnMapping.Kind.BIGINT, BIGINT, List.of())), TypeMapping.DURATION_TYPE.getObject(block, position));
            case ARRAY, VECTOR -> {
                Block elements = ((ArrayType) mapping.type().orElseThrow()).getObject(block, position);
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < elements.getPositionCount(); i++) {
                    values.add(read(mapping.child(0), elements, i));
                }
                yield values;
            }
            case MAP -> {
                SqlMap map = ((MapType) mapping.type().orElseThrow()).getObject(block, position);
                Map<Object, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < map.getSize(); i++) {
                    values.put(read(mapping.child(0), map.getRawKeyBlock(), map.getRawOffset() + i),
                            read(mapping.child(1), map.getRawValueBlock(), map.getRawOffset() + i));
                }
                yield values;
            }
            case ROW -> row(mapping.children(), ((RowType) mapping.type().orElseThrow()).getObject(block, position));
            case UNSUPPORTED -> throw new IllegalArgumentException("unmapped column: " + mapping.unsupported().orElseThrow());
        };
    }

    private static List<Object> row(List<ColumnMapping> fields, SqlRow row)
    {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            values.add(read(fields.get(i), row.getRawFieldBlock(i), row.getRawIndex()));
        }
        return values;
    }

    /** The address text of IPADDRESS's 16 bytes; Java reads an IPv4-mapped address as IPv4, as Trino prints it. */
    private static String address(byte[] bytes)
    {
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        }
        catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
