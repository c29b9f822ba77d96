package io.sstableflight.trino;

import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.SortedRangeSet;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Drops the rows of a split's pages that a join's dynamic filter rules
 * out. A split planned before the filter completed (planning waits only
 * dynamic_filtering_wait_timeout) still reads its whole range; once the
 * filter arrives, the rows it excludes go no further than the page source,
 * and a filter that admits nothing ends the split.
 *
 * The predicate is read once a page (a volatile read in Trino) and its
 * checks rebuilt only when it changed. Integer and date columns, what
 * partition keys mostly are, are checked against the ranges' primitive
 * bounds with no object per row; other types go through the Domain,
 * boxing their value.
 */
final class DynamicRowFilter
{
    private static final Set<Type> LONG_ORDERED = Set.of(BIGINT, INTEGER, SMALLINT, TINYINT, DATE);

    private final DynamicFilter filter;
    private final List<SstableFlightColumnHandle> columns;
    private TupleDomain<ColumnHandle> predicate = TupleDomain.all();
    private List<ChannelTest> tests = List.of();

    /** @param columns the columns of the split's pages, one a channel */
    DynamicRowFilter(DynamicFilter filter, List<SstableFlightColumnHandle> columns)
    {
        this.filter = requireNonNull(filter, "filter is null");
        this.columns = List.copyOf(columns);
    }

    /** Whether the filter now admits no row at all: the split can end. */
    boolean admitsNothing()
    {
        return filter.getCurrentPredicate().isNone();
    }

    /** The rows of {@code page} the filter admits now; the page itself when it admits them all. */
    Page filter(Page page)
    {
        TupleDomain<ColumnHandle> current = filter.getCurrentPredicate();
        if (!current.equals(predicate)) {
            predicate = current;
            tests = tests(current);
        }
        if (current.isNone()) {
            return page.getPositions(new int[0], 0, 0);
        }
        if (tests.isEmpty()) {
            return page;
        }
        int count = page.getPositionCount();
        int[] kept = null;
        int size = 0;
        for (int position = 0; position < count; position++) {
            if (admits(page, position)) {
                if (kept != null) {
                    kept[size] = position;
                }
                size++;
            }
            else if (kept == null) {
                // The first row dropped: from here on the kept positions are listed.
                kept = new int[count];
                for (int i = 0; i < position; i++) {
                    kept[i] = i;
                }
                size = position;
            }
        }
        return kept == null ? page : page.getPositions(kept, 0, size);
    }

    private boolean admits(Page page, int position)
    {
        for (ChannelTest test : tests) {
            if (!test.admits(page.getBlock(test.channel()), position)) {
                return false;
            }
        }
        return true;
    }

    private List<ChannelTest> tests(TupleDomain<ColumnHandle> predicate)
    {
        List<ChannelTest> tests = new ArrayList<>();
        Map<ColumnHandle, Domain> domains = predicate.getDomains().orElse(Map.of());
        for (int channel = 0; channel < columns.size(); channel++) {
            Domain domain = domains.get(columns.get(channel));
            if (domain != null && !domain.isAll()) {
                tests.add(test(channel, domain));
            }
        }
        return List.copyOf(tests);
    }

    private static ChannelTest test(int channel, Domain domain)
    {
        Type type = domain.getType();
        if (LONG_ORDERED.contains(type) && domain.getValues() instanceof SortedRangeSet ranges) {
            return new LongRanges(channel, type, domain.isNullAllowed(), ranges.getOrderedRanges());
        }
        return new AnyValue(channel, domain);
    }

    private interface ChannelTest
    {
        int channel();

        boolean admits(Block block, int position);
    }

    /** Any type: the Domain itself, on the boxed value. */
    private record AnyValue(int channel, Domain domain)
            implements ChannelTest
    {
        @Override
        public boolean admits(Block block, int position)
        {
            return domain.includesNullableValue(readNativeValue(domain.getType(), block, position));
        }
    }

    /** A type Trino holds as a long in its natural order: sorted disjoint ranges, bounds as primitives, binary search. */
    private static final class LongRanges
            implements ChannelTest
    {
        private final int channel;
        private final Type type;
        private final boolean nullAllowed;
        private final long[] lows;
        private final long[] highs;

        LongRanges(int channel, Type type, boolean nullAllowed, List<Range> ranges)
        {
            this.channel = channel;
            this.type = type;
            this.nullAllowed = nullAllowed;
            List<long[]> bounds = new ArrayList<>();
            for (Range range : ranges) {
                // Inclusive bounds: an exclusive one steps in by one, which integers and dates allow;
                // a step past the end of the longs leaves nothing in the range.
                long low = range.isLowUnbounded() ? Long.MIN_VALUE : (long) range.getLowBoundedValue();
                long high = range.isHighUnbounded() ? Long.MAX_VALUE : (long) range.getHighBoundedValue();
                if (!range.isLowUnbounded() && !range.isLowInclusive()) {
                    if (low == Long.MAX_VALUE) {
                        continue;
                    }
                    low++;
                }
                if (!range.isHighUnbounded() && !range.isHighInclusive()) {
                    if (high == Long.MIN_VALUE) {
                        continue;
                    }
                    high--;
                }
                if (low <= high) {
                    bounds.add(new long[] {low, high});
                }
            }
            this.lows = bounds.stream().mapToLong(bound -> bound[0]).toArray();
            this.highs = bounds.stream().mapToLong(bound -> bound[1]).toArray();
        }

        @Override
        public int channel()
        {
            return channel;
        }

        @Override
        public boolean admits(Block block, int position)
        {
            if (block.isNull(position)) {
                return nullAllowed;
            }
            long value = type.getLong(block, position);
            int low = 0;
            int high = lows.length - 1;
            while (low <= high) {
                int middle = (low + high) >>> 1;
                if (value < lows[middle]) {
                    high = middle - 1;
                }
                else if (value > highs[middle]) {
                    low = middle + 1;
                }
                else {
                    return true;
                }
            }
            return false;
        }
    }
}
