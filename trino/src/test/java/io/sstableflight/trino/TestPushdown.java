package io.sstableflight.trino;

import io.airlift.slice.Slices;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Filter → command translation: what becomes keys and a clustering slice,
 * and that everything else is left to Trino whole. The table is
 * corpus.clustered: PRIMARY KEY ((tenant, bucket), c_int, c_text, c_ts)
 * WITH CLUSTERING ORDER BY (c_int ASC, c_text DESC, c_ts ASC).
 */
class TestPushdown
{
    private static final SstableFlightColumnHandle TENANT = column("tenant", "text", "partition_key", VARCHAR);
    private static final SstableFlightColumnHandle BUCKET = column("bucket", "int", "partition_key", INTEGER);
    private static final SstableFlightColumnHandle C_INT = column("c_int", "int", "clustering asc", INTEGER);
    private static final SstableFlightColumnHandle C_TEXT = column("c_text", "text", "clustering desc", VARCHAR);
    private static final SstableFlightColumnHandle C_TS = column("c_ts", "timestamp", "clustering asc", TIMESTAMP_TZ_MILLIS);
    private static final SstableFlightColumnHandle S_NOTE = column("s_note", "text", "static", VARCHAR);
    private static final SstableFlightColumnHandle V = column("v", "text", "regular", VARCHAR);
    private static final SstableFlightColumnHandle W = column("w", "bigint", "regular", BIGINT);
    private static final List<SstableFlightColumnHandle> CLUSTERED = List.of(TENANT, BUCKET, C_INT, C_TEXT, C_TS, S_NOTE, V, W);

    @Test
    void fullyBoundKeyIsOneKeyAndTheRestStaysInTrino()
    {
        TupleDomain<ColumnHandle> filter = filter(Map.of(TENANT, text("acme"), BUCKET, ints(1), V, text("x")));
        Pushdown.Translation translation = Pushdown.translate(filter, CLUSTERED);
        KeyRestriction restriction = translation.restriction().orElseThrow();
        assertThat(restriction.keyColumns()).containsExactly("tenant", "bucket");
        assertThat(restriction.keys()).containsExactly(List.of("\"acme\"", "1"));
        assertThat(restriction.clustering()).isEmpty();
        assertThat(restriction.singleStream()).isTrue();
        assertThat(translation.enforced()).isEqualTo(filter(Map.of(TENANT, text("acme"), BUCKET, ints(1))));
        assertThat(translation.remaining()).isEqualTo(filter(Map.of(V, text("x"))));
    }

    @Test
    void inListsAreTheirCrossProductInOrder()
    {
        Pushdown.Translation translation = Pushdown.translate(filter(Map.of(TENANT, text("b", "a"), BUCKET, ints(2, 1))), CLUSTERED);
        assertThat(translation.restriction().orElseThrow().keys()).containsExactly(
                List.of("\"a\"", "1"), List.of("\"a\"", "2"), List.of("\"b\"", "1"), List.of("\"b\"", "2"));
        assertThat(translation.remaining().isAll()).isTrue();
    }

    @Test
    void anInOfConsecutiveIntegersIsItsValues()
    {
        // Trino turns bucket IN (1, 2) into bucket BETWEEN 1 AND 2.
        Domain between = Domain.create(ValueSet.ofRanges(Range.range(INTEGER, 1L, true, 2L, true), Range.range(INTEGER, 5L, false, 7L, false)), false);
        Pushdown.Translation translation = Pushdown.translate(filter(Map.of(TENANT, text("acme"), BUCKET, between)), CLUSTERED);
        assertThat(translation.restriction().orElseThrow().keys()).containsExactly(
                List.of("\"acme\"", "1"), List.of("\"acme\"", "2"), List.of("\"acme\"", "6"));
        assertThat(translation.remaining().isAll()).isTrue();
        // A range wider than the server takes keys, or spanning most of bigint's, stays in Trino.
        SstableFlightColumnHandle id = column("id", "bigint", "partition_key", BIGINT);
        for (Range wide : List.of(Range.range(BIGINT, 0L, true, (long) Pushdown.MAX_KEYS, true), Range.range(BIGINT, Long.MIN_VALUE, true, Long.MAX_VALUE, true))) {
            assertThat(Pushdown.translate(filter(Map.of(id, Domain.create(ValueSet.ofRanges(wide), false))), List.of(id)).restriction()).as("%s", wide).isEmpty();
        }
        assertThat(Pushdown.translate(filter(Map.of(id, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 1L, true, (long) Pushdown.MAX_KEYS, true)), false))), List.of(id))
                .restriction().orElseThrow().keys()).hasSize(Pushdown.MAX_KEYS);
    }

    @Test
    void aKeyNotWhollyBoundIsNotPushed()
    {
        for (TupleDomain<ColumnHandle> filter : List.of(
                filter(Map.of(TENANT, text("acme"))),
                filter(Map.of(TENANT, text("acme"), BUCKET, Domain.create(ValueSet.ofRanges(Range.greaterThan(INTEGER, 1L)), false))),
                filter(Map.of(TENANT, text("acme"), BUCKET, Domain.singleValue(INTEGER, 1L, true))),
                filter(Map.of(TENANT, text("acme"), C_INT, ints(1))))) {
            Pushdown.Translation translation = Pushdown.translate(filter, CLUSTERED);
            assertThat(translation.restriction()).as("%s", filter).isEmpty();
            assertThat(translation.enforced().isAll()).isTrue();
            assertThat(translation.remaining()).isEqualTo(filter);
        }
    }

    @Test
    void keyTypesWhoseEqualityIsNotCassandrasAreNotPushed()
    {
        SstableFlightColumnHandle d = column("d", "double", "partition_key", DOUBLE);
        SstableFlightColumnHandle n = column("n", "varint", "partition_key", VARCHAR);
        SstableFlightColumnHandle a = column("a", "ascii", "partition_key", VARCHAR);
        assertThat(Pushdown.translate(filter(Map.of(d, Domain.singleValue(DOUBLE, 0.0))), List.of(d)).restriction()).isEmpty();
        assertThat(Pushdown.translate(filter(Map.of(n, text("01"))), List.of(n)).restriction()).isEmpty();
        // A non-ASCII text can be in no ascii column: left to Trino, which finds nothing.
        assertThat(Pushdown.translate(filter(Map.of(a, text("é"))), List.of(a)).restriction()).isEmpty();
        assertThat(Pushdown.translate(filter(Map.of(a, text("e"))), List.of(a)).restriction().orElseThrow().keys()).containsExactly(List.of("\"e\""));
    }

    @Test
    void moreKeysThanTheServerTakesAreNotPushed()
    {
        List<Long> many = new ArrayList<>();
        for (long i = 0; i <= Pushdown.MAX_KEYS; i++) {
            many.add(i);
        }
        SstableFlightColumnHandle id = column("id", "bigint", "partition_key", BIGINT);
        assertThat(Pushdown.translate(filter(Map.of(id, Domain.multipleValues(BIGINT, many))), List.of(id)).restriction()).isEmpty();
        KeyRestriction most = Pushdown.translate(filter(Map.of(id, Domain.multipleValues(BIGINT, many.subList(0, Pushdown.MAX_KEYS)))), List.of(id)).restriction().orElseThrow();
        assertThat(most.keys()).hasSize(Pushdown.MAX_KEYS);
        // Over 256 keys the server plans several endpoints: a limit is per endpoint then.
        assertThat(most.singleStream()).isFalse();
        assertThat(Pushdown.translate(filter(Map.of(id, Domain.multipleValues(BIGINT, many.subList(0, 256)))), List.of(id)).restriction().orElseThrow().singleStream()).isTrue();
    }

    @Test
    void clusteringEqualitiesThenOneRange()
    {
        TupleDomain<ColumnHandle> filter = filter(Map.of(
                TENANT, text("acme"), BUCKET, ints(1),
                C_INT, ints(3),
                C_TEXT, Domain.create(ValueSet.ofRanges(Range.range(VARCHAR, Slices.utf8Slice("a"), true, Slices.utf8Slice("c"), false)), false)));
        Pushdown.Translation translation = Pushdown.translate(filter, CLUSTERED);
        // c_text is DESC: the slice starts at its larger value, with that value's exclusivity.
        assertThat(translation.restriction().orElseThrow().clustering()).contains(new ClusteringSlice(
                Optional.of(new ClusteringSlice.Bound(List.of("3", "\"c\""), false)),
                Optional.of(new ClusteringSlice.Bound(List.of("3", "\"a\""), true))));
        assertThat(translation.remaining().isAll()).isTrue();
    }

    @Test
    void anAscendingRangeKeepsItsOrientation()
    {
        TupleDomain<ColumnHandle> filter = filter(Map.of(
                TENANT, text("acme"), BUCKET, ints(1),
                C_INT, Domain.create(ValueSet.ofRanges(Range.range(INTEGER, 1L, false, 5L, true)), false)));
        assertThat(Pushdown.translate(filter, CLUSTERED).restriction().orElseThrow().clustering()).contains(new ClusteringSlice(
                Optional.of(new ClusteringSlice.Bound(List.of("1"), false)),
                Optional.of(new ClusteringSlice.Bound(List.of("5"), true))));
    }

    @Test
    void anOpenLowEndStopsAboveTheEmptyValue()
    {
        // c_int < 5: Cassandra orders an empty int (Trino's null) before every int; the slice starts at the smallest int.
        TupleDomain<ColumnHandle> ints = filter(Map.of(TENANT, text("acme"), BUCKET, ints(1),
                C_INT, Domain.create(ValueSet.ofRanges(Range.lessThan(INTEGER, 5L)), false)));
        assertThat(Pushdown.translate(ints, CLUSTERED).restriction().orElseThrow().clustering()).contains(new ClusteringSlice(
                Optional.of(new ClusteringSlice.Bound(List.of(Long.toString(Integer.MIN_VALUE)), true)),
                Optional.of(new ClusteringSlice.Bound(List.of("5"), false))));
        // c_text > 'b', DESC: text's empty value is '', a real value Trino orders first as well, so the end stays open,
        // but the rows still share the equality prefix.
        TupleDomain<ColumnHandle> texts = filter(Map.of(TENANT, text("acme"), BUCKET, ints(1), C_INT, ints(3),
                C_TEXT, Domain.create(ValueSet.ofRanges(Range.greaterThan(VARCHAR, Slices.utf8Slice("b"))), false)));
        assertThat(Pushdown.translate(texts, CLUSTERED).restriction().orElseThrow().clustering()).contains(new ClusteringSlice(
                Optional.of(new ClusteringSlice.Bound(List.of("3"), true)),
                Optional.of(new ClusteringSlice.Bound(List.of("3", "\"b\""), false))));
    }

    @Test
    void clusteringAfterAGapOrAfterTheRangeStaysInTrino()
    {
        Domain range = Domain.create(ValueSet.ofRanges(Range.greaterThan(INTEGER, 1L)), false);
        Domain ts = Domain.singleValue(TIMESTAMP_TZ_MILLIS, packDateTimeWithZone(0, UTC_KEY));
        // No c_int: c_text and c_ts cannot slice.
        Pushdown.Translation gap = Pushdown.translate(filter(Map.of(TENANT, text("acme"), BUCKET, ints(1), C_TEXT, text("a"), C_TS, ts)), CLUSTERED);
        assertThat(gap.restriction().orElseThrow().clustering()).isEmpty();
        assertThat(gap.remaining()).isEqualTo(filter(Map.of(C_TEXT, text("a"), C_TS, ts)));
        // After a range, nothing more.
        Pushdown.Translation after = Pushdown.translate(filter(Map.of(TENANT, text("acme"), BUCKET, ints(1), C_INT, range, C_TEXT, text("a"))), CLUSTERED);
        assertThat(after.restriction().orElseThrow().clustering()).contains(new ClusteringSlice(Optional.of(new ClusteringSlice.Bound(List.of("1"), false)), Optional.empty()));
        assertThat(after.remaining()).isEqualTo(filter(Map.of(C_TEXT, text("a"))));
        // An IN is no single slice.
        Pushdown.Translation in = Pushdown.translate(filter(Map.of(TENANT, text("acme"), BUCKET, ints(1), C_INT, ints(1, 2))), CLUSTERED);
        assertThat(in.restriction().orElseThrow().clustering()).isEmpty();
        assertThat(in.remaining()).isEqualTo(filter(Map.of(C_INT, ints(1, 2))));
        // Without keys there is no slice: the server slices partitions it is given.
        Pushdown.Translation noKeys = Pushdown.translate(filter(Map.of(C_INT, ints(1))), CLUSTERED);
        assertThat(noKeys.restriction()).isEmpty();
        assertThat(noKeys.remaining()).isEqualTo(filter(Map.of(C_INT, ints(1))));
    }

    @Test
    void aFullPrefixOfEqualitiesIsAPointSlice()
    {
        TupleDomain<ColumnHandle> filter = filter(Map.of(TENANT, text("acme"), BUCKET, ints(1), C_INT, ints(0), C_TEXT, text("beta"),
                C_TS, Domain.singleValue(TIMESTAMP_TZ_MILLIS, packDateTimeWithZone(82_800_000, UTC_KEY))));
        ClusteringSlice.Bound all = new ClusteringSlice.Bound(List.of("0", "\"beta\"", "82800000"), true);
        assertThat(Pushdown.translate(filter, CLUSTERED).restriction().orElseThrow().clustering()).contains(new ClusteringSlice(Optional.of(all), Optional.of(all)));
    }

    @Test
    void uuidsSliceByEqualityOnly()
    {
        SstableFlightColumnHandle p = column("p", "int", "partition_key", INTEGER);
        SstableFlightColumnHandle u = column("u", "timeuuid", "clustering asc", UUID);
        java.util.UUID id = java.util.UUID.fromString("c3b4ece0-ece5-11f1-9bc1-1f76f4dfd68a");
        assertThat(Pushdown.translate(filter(Map.of(p, ints(1), u, Domain.singleValue(UUID, javaUuidToTrinoUuid(id)))), List.of(p, u)).restriction().orElseThrow().clustering())
                .contains(new ClusteringSlice(Optional.of(new ClusteringSlice.Bound(List.of("\"" + id + "\""), true)), Optional.of(new ClusteringSlice.Bound(List.of("\"" + id + "\""), true))));
        Domain after = Domain.create(ValueSet.ofRanges(Range.greaterThan(UUID, javaUuidToTrinoUuid(id))), false);
        Pushdown.Translation ranged = Pushdown.translate(filter(Map.of(p, ints(1), u, after)), List.of(p, u));
        assertThat(ranged.restriction().orElseThrow().clustering()).isEmpty();
        assertThat(ranged.remaining()).isEqualTo(filter(Map.of(u, after)));
    }

    @Test
    void projectionNamesTheUsedColumnsInTableOrder()
    {
        SstableFlightTableHandle table = SstableFlightTableHandle.of("corpus", "clustered");
        assertThat(Pushdown.projection(table, CLUSTERED, List.of(W, TENANT)).orElseThrow().columns()).contains(List.of("tenant", "w"));
        // No column at all: count_only.
        assertThat(Pushdown.projection(table, CLUSTERED, List.of()).orElseThrow().columns()).contains(List.of());
        // Every column, or what the handle reads already: nothing changes.
        assertThat(Pushdown.projection(table, CLUSTERED, CLUSTERED)).isEmpty();
        SstableFlightTableHandle projected = table.withColumns(Optional.of(List.of("tenant", "w")));
        assertThat(Pushdown.projection(projected, CLUSTERED, List.of(TENANT, W))).isEmpty();
    }

    private static SstableFlightColumnHandle column(String name, String cqlType, String kind, Type type)
    {
        return new SstableFlightColumnHandle(name, cqlType, kind, type, Optional.empty());
    }

    private static TupleDomain<ColumnHandle> filter(Map<SstableFlightColumnHandle, Domain> domains)
    {
        return TupleDomain.withColumnDomains(Map.copyOf(domains));
    }

    private static Domain text(String... values)
    {
        return Domain.multipleValues(VARCHAR, java.util.Arrays.stream(values).map(Slices::utf8Slice).toList());
    }

    private static Domain ints(long... values)
    {
        return Domain.multipleValues(INTEGER, java.util.Arrays.stream(values).boxed().toList());
    }
}
