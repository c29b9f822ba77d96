package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;

import static io.sstableflight.trino.ColumnMapping.Kind;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.TIME_NANOS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * Maps the server's Arrow fields (docs/types.md) to Trino types: the Arrow
 * type decides, and the {@code cql.type} metadata tells apart the CQL types
 * that share one (text, inet and decimal are all Utf8). docs/trino.md has
 * the table.
 */
public final class TypeMapping
{
    /** The CQL type of every field, top-level and nested, as the server writes it. */
    public static final String CQL_TYPE = "cql.type";
    public static final String CQL_KIND = "cql.kind";
    public static final String CQL_CLUSTERING_ORDER = "cql.clustering_order";

    static final RowType DURATION_TYPE = RowType.from(List.of(
            RowType.field("months", INTEGER),
            RowType.field("days", INTEGER),
            RowType.field("nanoseconds", BIGINT)));

    private final Type ipAddressType;
    private final TypeOperators typeOperators;
    private final Optional<DecimalType> decimalType;
    private final RoundingMode decimalRounding;

    /**
     * Decimals as exact text.
     *
     * @param ipAddressType Trino's IPADDRESS, which lives in the engine, not the SPI
     */
    public TypeMapping(Type ipAddressType, TypeOperators typeOperators)
    {
        this(ipAddressType, typeOperators, Optional.empty(), RoundingMode.UNNECESSARY);
    }

    /**
     * @param decimalType the type of every decimal; empty: the exact text
     * @param decimalRounding how a decimal with more fraction digits than that type's scale is rounded (UNNECESSARY: it fails)
     */
    public TypeMapping(Type ipAddressType, TypeOperators typeOperators, Optional<DecimalType> decimalType, RoundingMode decimalRounding)
    {
        this.ipAddressType = requireNonNull(ipAddressType, "ipAddressType is null");
        this.typeOperators = requireNonNull(typeOperators, "typeOperators is null");
        this.decimalType = requireNonNull(decimalType, "decimalType is null");
        this.decimalRounding = requireNonNull(decimalRounding, "decimalRounding is null");
    }

    /** The mapping of a top-level field, read from its {@code cql.type}. */
    public ColumnMapping map(Field field)
    {
        return map(field, CqlType.UNKNOWN);
    }

    /**
     * The mapping of a field whose parent's spelling says {@code spelled}
     * (UNKNOWN at the top level, or where the spelling has no arguments, as
     * a UDT's name). The field's own {@code cql.type} wins: the server puts
     * one on every nested field too, so a UDT's inet or decimal field is
     * told from text although the UDT's name spells none of its fields.
     */
    private ColumnMapping map(Field field, CqlType spelled)
    {
        String own = Optional.ofNullable(field.getMetadata()).map(m -> m.get(CQL_TYPE)).orElse(null);
        if (own == null) {
            return mapType(field, spelled);
        }
        try {
            return mapType(field, CqlType.parse(own));
        }
        catch (IllegalArgumentException e) {
            return ColumnMapping.unsupported(e.getMessage());
        }
    }

    private ColumnMapping mapType(Field field, CqlType cql)
    {
        ArrowType arrow = field.getType();
        if (arrow instanceof ArrowType.ExtensionType extension) {
            arrow = extension.storageType();
        }
        return switch (arrow) {
            case ArrowType.Bool _ -> ColumnMapping.of(Kind.BOOLEAN, BOOLEAN, List.of());
            case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 8 -> ColumnMapping.of(Kind.TINYINT, TINYINT, List.of());
            case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 16 -> ColumnMapping.of(Kind.SMALLINT, SMALLINT, List.of());
            case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 32 -> ColumnMapping.of(Kind.INTEGER, INTEGER, List.of());
            case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() == 64 -> ColumnMapping.of(Kind.BIGINT, BIGINT, List.of());
            case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.SINGLE -> ColumnMapping.of(Kind.REAL, REAL, List.of());
            case ArrowType.FloatingPoint f when f.getPrecision() == FloatingPointPrecision.DOUBLE -> ColumnMapping.of(Kind.DOUBLE, DOUBLE, List.of());
            case ArrowType.Utf8 _ -> switch (cql.name()) {
                case "inet" -> ColumnMapping.of(Kind.INET, ipAddressType, List.of());
                case "decimal" -> decimalType
                        .map(type -> ColumnMapping.decimal(type, decimalRounding))
                        .orElseGet(() -> ColumnMapping.of(Kind.DECIMAL_TEXT, VARCHAR, List.of()));
                default -> ColumnMapping.of(Kind.VARCHAR, VARCHAR, List.of());
            };
            case ArrowType.Binary _ -> ColumnMapping.of(Kind.VARBINARY, VARBINARY, List.of());
            case ArrowType.Timestamp t when t.getUnit() == TimeUnit.MILLISECOND && "UTC".equals(t.getTimezone()) -> ColumnMapping.of(Kind.TIMESTAMP, TIMESTAMP_TZ_MILLIS, List.of());
            case ArrowType.Date d when d.getUnit() == DateUnit.DAY -> ColumnMapping.of(Kind.DATE, DATE, List.of());
            case ArrowType.Time t when t.getUnit() == TimeUnit.NANOSECOND && t.getBitWidth() == 64 -> ColumnMapping.of(Kind.TIME, TIME_NANOS, List.of());
            case ArrowType.Interval i when i.getUnit() == IntervalUnit.MONTH_DAY_NANO -> ColumnMapping.of(Kind.DURATION, DURATION_TYPE, List.of());
            case ArrowType.FixedSizeBinary b when b.getByteWidth() == 16 -> ColumnMapping.of(Kind.UUID, UUID, List.of());
            case ArrowType.List _ -> array(Kind.ARRAY, field, cql);
            case ArrowType.FixedSizeList _ -> array(Kind.VECTOR, field, cql);
            case ArrowType.Map _ -> mapOf(field, cql);
            case ArrowType.Struct _ -> row(field, cql);
            case ArrowType.Null _ -> ColumnMapping.unsupported("CQL type %s is always null (Arrow Null); it has no Trino column type".formatted(describe(cql)));
            default -> ColumnMapping.unsupported("Arrow type %s (CQL %s) has no Trino mapping yet".formatted(arrow, describe(cql)));
        };
    }

    private ColumnMapping array(Kind kind, Field field, CqlType cql)
    {
        ColumnMapping element = map(field.getChildren().getFirst(), cql.argument(0));
        if (!element.isSupported()) {
            return ColumnMapping.unsupported("element: " + element.unsupported().orElseThrow());
        }
        return ColumnMapping.of(kind, new ArrayType(element.type().orElseThrow()), List.of(element));
    }

    private ColumnMapping mapOf(Field field, CqlType cql)
    {
        // NB: an Arrow map is a list of struct<key, value>.
        List<Field> entry = field.getChildren().getFirst().getChildren();
        ColumnMapping key = map(entry.get(0), cql.argument(0));
        ColumnMapping value = map(entry.get(1), cql.argument(1));
        if (!key.isSupported()) {
            return ColumnMapping.unsupported("map key: " + key.unsupported().orElseThrow());
        }
        if (!value.isSupported()) {
            return ColumnMapping.unsupported("map value: " + value.unsupported().orElseThrow());
        }
        MapType type = new MapType(key.type().orElseThrow(), value.type().orElseThrow(), typeOperators);
        return ColumnMapping.of(Kind.MAP, type, List.of(key, value));
    }

    private ColumnMapping row(Field field, CqlType cql)
    {
        // A tuple's fields are positional ("0", "1", ... in Arrow): an anonymous ROW, read
        // by subscript. A UDT keeps its field names; its cql.type is only its name, so
        // its fields' CQL types come from their own metadata.
        boolean tuple = cql.name().equals("tuple");
        ImmutableList.Builder<ColumnMapping> children = ImmutableList.builder();
        ImmutableList.Builder<RowType.Field> fields = ImmutableList.builder();
        List<Field> arrowFields = field.getChildren();
        for (int i = 0; i < arrowFields.size(); i++) {
            Field child = arrowFields.get(i);
            ColumnMapping mapping = map(child, cql.argument(i));
            if (!mapping.isSupported()) {
                return ColumnMapping.unsupported("field %s: %s".formatted(child.getName(), mapping.unsupported().orElseThrow()));
            }
            children.add(mapping);
            Type type = mapping.type().orElseThrow();
            fields.add(tuple ? RowType.field(type) : RowType.field(child.getName(), type));
        }
        return ColumnMapping.of(Kind.ROW, RowType.from(fields.build()), children.build());
    }

    private static String describe(CqlType cql)
    {
        return cql.name().isEmpty() ? "unknown" : cql.name();
    }
}
