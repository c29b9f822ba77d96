package io.sstableflight.trino;

import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A join's dynamic filter applied to a split's pages: the rows it rules
 * out are dropped (an integer key through the primitive ranges, text
 * through the Domain), nulls as the domain says, a page it admits whole is
 * passed on as it is, and a filter admitting nothing empties pages and
 * says the split can end. The filter may narrow between pages.
 */
class TestDynamicRowFilter
{
    private static final SstableFlightColumnHandle KEY = new SstableFlightColumnHandle("k", "int", "partition_key", INTEGER, Optional.empty());
    private static final SstableFlightColumnHandle NAME = new SstableFlightColumnHandle("name", "text", "regular", VARCHAR, Optional.empty());
    private static final SstableFlightColumnHandle BIG = new SstableFlightColumnHandle("b", "bigint", "regular", BIGINT, Optional.empty());

    private static Page page()
    {
        BlockBuilder keys = INTEGER.createBlockBuilder(null, 6);
        BlockBuilder names = VARCHAR.createBlockBuilder(null, 6);
        BlockBuilder bigs = BIGINT.createBlockBuilder(null, 6);
        Integer[] k = {1, 2, 3, null, 5, 6};
        String[] n = {"a", "b", "c", "d", null, "f"};
        Long[] b = {Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE, null};
        for (int i = 0; i < k.length; i++) {
            if (k[i] == null) {
                keys.appendNull();
            }
            else {
                INTEGER.writeLong(keys, k[i]);
            }
            if (n[i] == null) {
                names.appendNull();
            }
            else {
                VARCHAR.writeSlice(names, Slices.utf8Slice(n[i]));
            }
            if (b[i] == null) {
                bigs.appendNull();
            }
            else {
                BIGINT.writeLong(bigs, b[i]);
            }
        }
        return new Page(keys.build(), names.build(), bigs.build());
    }

    private static List<String> names(Page page)
    {
        List<String> out = new ArrayList<>();
        Block block = page.getBlock(1);
        for (int i = 0; i < page.getPositionCount(); i++) {
            out.add(block.isNull(i) ? "null" : VARCHAR.getSlice(block, i).toStringUtf8());
        }
        return out;
    }

    private static DynamicRowFilter filter(ScriptedDynamicFilter dynamic)
    {
        return new DynamicRowFilter(dynamic, List.of(KEY, NAME, BIG));
    }

    private static TupleDomain<ColumnHandle> on(SstableFlightColumnHandle column, Domain domain)
    {
        return TupleDomain.withColumnDomains(Map.of(column, domain));
    }

    @Test
    void aFilterNarrowsThePagesAsItArrives()
    {
        ScriptedDynamicFilter dynamic = new ScriptedDynamicFilter(Set.of(KEY));
        DynamicRowFilter filter = filter(dynamic);
        Page page = page();
        assertThat(filter.filter(page)).isSameAs(page);

        dynamic.narrow(on(KEY, Domain.multipleValues(INTEGER, List.of(2L, 5L, 9L))));
        assertThat(names(filter.filter(page))).containsExactly("b", "null");

        dynamic.complete(on(KEY, Domain.create(ValueSet.ofRanges(Range.range(INTEGER, 2L, false, 5L, true)), true)));
        // (2, 5] and null.
        assertThat(names(filter.filter(page))).containsExactly("c", "d", "null");
        assertThat(filter.admitsNothing()).isFalse();
    }

    @Test
    void aFilterThatAdmitsEveryRowPassesThePageOn()
    {
        ScriptedDynamicFilter dynamic = new ScriptedDynamicFilter(Set.of(KEY));
        dynamic.complete(on(KEY, Domain.create(ValueSet.ofRanges(Range.greaterThanOrEqual(INTEGER, 0L)), true)));
        Page page = page();
        assertThat(filter(dynamic).filter(page)).isSameAs(page);
    }

    @Test
    void textGoesThroughTheDomain()
    {
        ScriptedDynamicFilter dynamic = new ScriptedDynamicFilter(Set.of(NAME));
        dynamic.complete(on(NAME, Domain.multipleValues(VARCHAR, List.of(Slices.utf8Slice("f"), Slices.utf8Slice("a")))));
        assertThat(names(filter(dynamic).filter(page()))).containsExactly("a", "f");
    }

    @Test
    void boundsAtTheEndsOfTheLongs()
    {
        ScriptedDynamicFilter dynamic = new ScriptedDynamicFilter(Set.of(BIG));
        dynamic.complete(on(BIG, Domain.create(ValueSet.ofRanges(
                Range.lessThan(BIGINT, Long.MIN_VALUE),
                Range.range(BIGINT, Long.MIN_VALUE, true, 0L, false),
                Range.greaterThan(BIGINT, Long.MAX_VALUE - 1)), false)));
        assertThat(names(filter(dynamic).filter(page()))).containsExactly("a", "b", "null");
    }

    @Test
    void aFilterThatAdmitsNothingEndsTheSplit()
    {
        ScriptedDynamicFilter dynamic = new ScriptedDynamicFilter(Set.of(KEY));
        DynamicRowFilter filter = filter(dynamic);
        assertThat(filter.admitsNothing()).isFalse();
        dynamic.complete(TupleDomain.none());
        assertThat(filter.admitsNothing()).isTrue();
        assertThat(filter.filter(page()).getPositionCount()).isZero();
    }
}
