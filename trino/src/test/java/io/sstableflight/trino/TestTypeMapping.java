package io.sstableflight.trino;

import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Arrow fields as the server writes them (docs/types.md: every field, top
 * level and nested, carries its own cql.type) mapped to Trino types,
 * spelled as DESCRIBE prints them. The golden streams cover every type of
 * the corpus (TestArrowGolden); these cover what the corpus has not: a
 * UDT's fields of every CQL type that shares an Arrow type with another
 * (inet, decimal and varint are Utf8 like text; timeuuid is uuid's Arrow
 * type), at any depth.
 */
class TestTypeMapping
{
    private final TypeMapping mapping = new TypeMapping(TestingIpAddressType.IPADDRESS, new TypeOperators());

    private static Field field(String name, String cqlType, ArrowType type, Field... children)
    {
        return new Field(name, new FieldType(true, type, null, Map.of(TypeMapping.CQL_TYPE, cqlType)), List.of(children));
    }

    private static Field utf8(String name, String cqlType)
    {
        return field(name, cqlType, ArrowType.Utf8.INSTANCE);
    }

    /** A UDT holding one field of each CQL type, as the server writes frozen&lt;spot&gt;. */
    private static Field spot(String name, String cqlType)
    {
        return field(name, cqlType, ArrowType.Struct.INSTANCE,
                utf8("ip", "inet"),
                utf8("amount", "decimal"),
                utf8("big", "varint"),
                utf8("label", "ascii"),
                field("id", "uuid", new ArrowType.FixedSizeBinary(16)),
                field("tid", "timeuuid", new ArrowType.FixedSizeBinary(16)),
                field("at", "timestamp", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
                field("day", "date", new ArrowType.Date(DateUnit.DAY)),
                field("tod", "time", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
                field("took", "duration", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)),
                field("raw", "blob", ArrowType.Binary.INSTANCE),
                field("ratio", "float", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                field("hops", "frozen<list<inet>>", new ArrowType.List(), utf8("item", "inet")));
    }

    private static final String SPOT = "row(ip ipaddress, amount varchar, big varchar, label varchar, id uuid, tid uuid, "
            + "at timestamp(3) with time zone, day date, tod time(9), took row(months integer, days integer, nanoseconds bigint), "
            + "raw varbinary, ratio real, hops array(ipaddress))";

    private String trinoType(Field field)
    {
        ColumnMapping columnMapping = mapping.map(field);
        assertThat(columnMapping.unsupported()).as("%s maps", field).isEmpty();
        return columnMapping.type().orElseThrow().getDisplayName();
    }

    @Test
    void aUdtsFieldsMapByTheirOwnCqlType()
    {
        assertThat(trinoType(spot("s", "frozen<spot>"))).isEqualTo(SPOT);
    }

    @Test
    void udtsInsideCollectionsAndTuplesMapToo()
    {
        assertThat(trinoType(field("l", "list<frozen<spot>>", new ArrowType.List(), spot("item", "frozen<spot>"))))
                .isEqualTo("array(" + SPOT + ")");
        assertThat(trinoType(field("t", "frozen<tuple<inet, frozen<spot>>>", ArrowType.Struct.INSTANCE, utf8("0", "inet"), spot("1", "frozen<spot>"))))
                .isEqualTo("row(ipaddress, " + SPOT + ")");
        Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                new Field("key", new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "text")), List.of()),
                spot("value", "frozen<spot>")));
        assertThat(trinoType(field("m", "map<text, frozen<spot>>", new ArrowType.Map(false), entries)))
                .isEqualTo("map(varchar, " + SPOT + ")");
    }

    @Test
    void withoutNestedMetadataTheParentsSpellingStillTypesTuplesAndCollections()
    {
        // A server older than the nested cql.type metadata: only the top-level field has it.
        Field tuple = new Field("t", new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "frozen<tuple<inet, decimal>>")), List.of(
                new Field("0", FieldType.nullable(ArrowType.Utf8.INSTANCE), List.of()),
                new Field("1", FieldType.nullable(ArrowType.Utf8.INSTANCE), List.of())));
        assertThat(trinoType(tuple)).isEqualTo("row(ipaddress, varchar)");
        Field list = new Field("l", new FieldType(true, new ArrowType.List(), null, Map.of(TypeMapping.CQL_TYPE, "list<inet>")), List.of(
                new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), List.of())));
        assertThat(trinoType(list)).isEqualTo("array(ipaddress)");
    }

    @Test
    void aNestedCqlTypeThatDoesNotParseIsReportedUnmapped()
    {
        Field udt = field("u", "frozen<bad>", ArrowType.Struct.INSTANCE, utf8("x", "map<text"));
        ColumnMapping columnMapping = mapping.map(udt);
        assertThat(columnMapping.isSupported()).isFalse();
        assertThat(columnMapping.unsupported()).hasValueSatisfying(why -> assertThat(why).contains("field x").contains("map<text"));
    }
}
