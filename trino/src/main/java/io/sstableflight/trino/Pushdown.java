package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Translates the part of a filter the server answers exactly into the
 * command's {@code keys} and {@code clustering}, and says what is left
 * for Trino:
 *
 * - every partition key column bound by equality or IN (a discrete set of
 *   values, null excluded) becomes {@code keys}: the cross product of the
 *   columns' values, at most {@link #MAX_KEYS} (the server's limit);
 * - with keys, the clustering columns from the first one on, each bound
 *   to one value, and then optionally one more bound by a single range,
 *   become a {@code clustering} slice, oriented by each column's
 *   clustering order (a DESC column's slice starts at its larger value);
 * - anything else (a partition key range, a key column left free, a
 *   clustering column after a gap or after the ranged one, regular and
 *   static columns, a type {@link KeyLiterals} does not push) stays in
 *   Trino's filter, so a query's rows never depend on what was pushed.
 *
 * A column's domain is either enforced whole by the server or left to
 * Trino whole: the remaining filter is the summary without the enforced
 * columns.
 */
final class Pushdown
{
    /** The server's limit on the distinct keys of a command (docs/flight-api.md). */
    static final int MAX_KEYS = 10_000;
    /** The server's rule for one endpoint of keys: at most 256 keys and 512 KiB of them. */
    private static final int KEYS_PER_STREAM = 256;
    private static final long KEY_BYTES_PER_STREAM = 512 << 10;
    /** A composite partition key adds a 2-byte length and an end byte to each component. */
    private static final int COMPOSITE_OVERHEAD = 3;

    private Pushdown() {}

    /**
     * The handle that reads only the given columns (in the table's order),
     * none for a query that uses none ({@code count_only}), or empty when
     * that is what the handle reads already.
     */
    static Optional<SstableFlightTableHandle> projection(SstableFlightTableHandle handle, List<SstableFlightColumnHandle> columns, Collection<? extends ColumnHandle> used)
    {
        Set<ColumnHandle> wanted = Set.copyOf(used);
        List<String> names = columns.stream()
                .filter(wanted::contains)
                .map(SstableFlightColumnHandle::name)
                .collect(ImmutableList.toImmutableList());
        Optional<List<String>> projected = names.size() == columns.size() ? Optional.empty() : Optional.of(names);
        if (projected.equals(handle.columns())) {
            return Optional.empty();
        }
        return Optional.of(handle.withColumns(projected));
    }

    /** What the server enforces and the restriction that does it; the rest of the filter. */
    record Translation(TupleDomain<ColumnHandle> enforced, TupleDomain<ColumnHandle> remaining, Optional<KeyRestriction> restriction)
    {
        Translation
        {
            requireNonNull(enforced, "enforced is null");
            requireNonNull(remaining, "remaining is null");
            requireNonNull(restriction, "restriction is null");
        }
    }

    /** Splits a filter on a table (its columns in CQL's SELECT * order) into the pushed part and the rest. */
    static Translation translate(TupleDomain<ColumnHandle> filter, List<SstableFlightColumnHandle> columns)
    {
        Optional<Map<ColumnHandle, Domain>> domains = filter.getDomains();
        if (domains.isEmpty() || domains.get().isEmpty()) {
            return new Translation(TupleDomain.all(), filter, Optional.empty());
        }
        Set<ColumnHandle> enforced = new HashSet<>();
        Optional<KeyRestriction> restriction = keys(domains.get(), columns, enforced)
                .map(keys -> new KeyRestriction(keys.columns(), keys.values(), slice(domains.get(), columns, enforced), keys.singleStream()));
        if (restriction.isEmpty()) {
            return new Translation(TupleDomain.all(), filter, Optional.empty());
        }
        return new Translation(
                filter.filter((column, _) -> enforced.contains(column)),
                filter.filter((column, _) -> !enforced.contains(column)),
                restriction);
    }

    private record Keys(List<String> columns, List<List<String>> values, boolean singleStream) {}

    /** The keys every partition key column's domain names, or empty when one of them names no finite set. */
    private static Optional<Keys> keys(Map<ColumnHandle, Domain> domains, List<SstableFlightColumnHandle> columns, Set<ColumnHandle> enforced)
    {
        List<SstableFlightColumnHandle> keyColumns = columns.stream().filter(Pushdown::isPartitionKey).toList();
        if (keyColumns.isEmpty()) {
            return Optional.empty();
        }
        List<String> names = new ArrayList<>();
        List<List<String>> literals = new ArrayList<>();
        List<List<Integer>> sizes = new ArrayList<>();
        long product = 1;
        for (SstableFlightColumnHandle column : keyColumns) {
            Domain domain = domains.get(column);
            if (domain == null || domain.isNullAllowed() || !KeyLiterals.EQUALITY_TYPES.contains(column.cqlType())) {
                return Optional.empty();
            }
            Optional<List<Object>> discrete = discreteValues(domain, column.cqlType());
            if (discrete.isEmpty()) {
                return Optional.empty();
            }
            List<String> values = new ArrayList<>();
            List<Integer> valueSizes = new ArrayList<>();
            for (Object value : discrete.get()) {
                Optional<String> literal = KeyLiterals.literal(column.cqlType(), value);
                OptionalInt size = KeyLiterals.serializedSize(column.cqlType(), value);
                if (literal.isEmpty() || size.isEmpty()) {
                    return Optional.empty();
                }
                values.add(literal.get());
                valueSizes.add(size.getAsInt() + (keyColumns.size() > 1 ? COMPOSITE_OVERHEAD : 0));
            }
            product *= values.size();
            if (values.isEmpty() || product > MAX_KEYS) {
                return Optional.empty();
            }
            names.add(column.name());
            literals.add(values);
            sizes.add(valueSizes);
        }
        List<List<String>> keys = new ArrayList<>();
        long bytes = crossProduct(literals, sizes, 0, new ArrayList<>(), 0, keys);
        enforced.addAll(keyColumns);
        return Optional.of(new Keys(names, keys, keys.size() <= KEYS_PER_STREAM && bytes <= KEY_BYTES_PER_STREAM));
    }

    /**
     * The values a domain holds, when they are at most {@link #MAX_KEYS}:
     * a discrete set, or bounded ranges of an integral type, which is what
     * Trino makes of an IN of consecutive integers ({@code bucket IN (1, 2)}
     * arrives as {@code bucket BETWEEN 1 AND 2}).
     */
    private static Optional<List<Object>> discreteValues(Domain domain, String cqlType)
    {
        if (domain.getValues().isDiscreteSet()) {
            return Optional.of(domain.getValues().getDiscreteSet());
        }
        if (!KeyLiterals.INTEGRAL_TYPES.contains(cqlType)) {
            return Optional.empty();
        }
        List<Object> values = new ArrayList<>();
        for (Range range : domain.getValues().getRanges().getOrderedRanges()) {
            if (range.isLowUnbounded() || range.isHighUnbounded()) {
                return Optional.empty();
            }
            long low = (Long) range.getLowBoundedValue();
            long high = (Long) range.getHighBoundedValue();
            // An exclusive bound at an end of long's range holds nothing beyond it.
            if ((!range.isLowInclusive() && low == Long.MAX_VALUE) || (!range.isHighInclusive() && high == Long.MIN_VALUE)) {
                continue;
            }
            low = range.isLowInclusive() ? low : low + 1;
            high = range.isHighInclusive() ? high : high - 1;
            // high - low wraps to a negative number when the range spans more than half of long's.
            if (high >= low && (high - low < 0 || high - low >= MAX_KEYS - values.size())) {
                return Optional.empty();
            }
            for (long value = low; value <= high; value++) {
                values.add(value);
            }
        }
        return Optional.of(values);
    }

    /** Appends every key of the cross product to keys, in the domains' order, and returns their serialized bytes. */
    private static long crossProduct(List<List<String>> literals, List<List<Integer>> sizes, int column, List<String> prefix, long prefixBytes, List<List<String>> keys)
    {
        if (column == literals.size()) {
            keys.add(List.copyOf(prefix));
            return prefixBytes;
        }
        long bytes = 0;
        for (int i = 0; i < literals.get(column).size(); i++) {
            prefix.add(literals.get(column).get(i));
            bytes += crossProduct(literals, sizes, column + 1, prefix, prefixBytes + sizes.get(column).get(i), keys);
            prefix.removeLast();
        }
        return bytes;
    }

    /**
     * The slice the clustering columns' domains give: equalities on the
     * first columns, then at most one range. Every column it uses is
     * added to enforced.
     */
    private static Optional<ClusteringSlice> slice(Map<ColumnHandle, Domain> domains, List<SstableFlightColumnHandle> columns, Set<ColumnHandle> enforced)
    {
        List<String> prefix = new ArrayList<>();
        for (SstableFlightColumnHandle column : columns.stream().filter(Pushdown::isClustering).toList()) {
            Domain domain = domains.get(column);
            if (domain == null || domain.isNullAllowed() || domain.isNone()) {
                break;
            }
            if (domain.isSingleValue() && KeyLiterals.EQUALITY_TYPES.contains(column.cqlType())) {
                Optional<String> literal = KeyLiterals.literal(column.cqlType(), domain.getSingleValue());
                if (literal.isEmpty()) {
                    break;
                }
                prefix.add(literal.get());
                enforced.add(column);
                continue;
            }
            Optional<ClusteringSlice> ranged = range(domain, column, prefix);
            if (ranged.isPresent()) {
                enforced.add(column);
                return ranged;
            }
            break;
        }
        if (prefix.isEmpty()) {
            return Optional.empty();
        }
        ClusteringSlice.Bound equal = new ClusteringSlice.Bound(prefix, true);
        return Optional.of(new ClusteringSlice(Optional.of(equal), Optional.of(equal)));
    }

    /** A single range of a column after the equality prefix, as a slice; empty when it is not one the server can hold. */
    private static Optional<ClusteringSlice> range(Domain domain, SstableFlightColumnHandle column, List<String> prefix)
    {
        if (!KeyLiterals.RANGE_TYPES.contains(column.cqlType()) || domain.getValues().getRanges().getRangeCount() != 1) {
            return Optional.empty();
        }
        Range range = domain.getValues().getRanges().getOrderedRanges().getFirst();
        if (range.isLowUnbounded() && range.isHighUnbounded()) {
            // IS NOT NULL: nothing to slice by, and the server's null (a static-only row) is Trino's to drop.
            return Optional.empty();
        }
        Optional<ClusteringSlice.Bound> low;
        if (range.isLowUnbounded()) {
            low = KeyLiterals.lowest(column.cqlType()).map(lowest -> bound(prefix, lowest, true));
        }
        else {
            Optional<String> literal = KeyLiterals.literal(column.cqlType(), range.getLowBoundedValue());
            if (literal.isEmpty()) {
                return Optional.empty();
            }
            low = Optional.of(bound(prefix, literal.get(), range.isLowInclusive()));
        }
        Optional<ClusteringSlice.Bound> high = Optional.empty();
        if (!range.isHighUnbounded()) {
            Optional<String> literal = KeyLiterals.literal(column.cqlType(), range.getHighBoundedValue());
            if (literal.isEmpty()) {
                return Optional.empty();
            }
            high = Optional.of(bound(prefix, literal.get(), range.isHighInclusive()));
        }
        // An open end still keeps the equality prefix: the rows after it must share it.
        ClusteringSlice.Bound equal = new ClusteringSlice.Bound(prefix, true);
        Optional<ClusteringSlice.Bound> openOrEqual = prefix.isEmpty() ? Optional.empty() : Optional.of(equal);
        low = low.or(() -> openOrEqual);
        high = high.or(() -> openOrEqual);
        return Optional.of(isDescending(column) ? new ClusteringSlice(high, low) : new ClusteringSlice(low, high));
    }

    /** The column kinds as SstableFlightMetadata spells them from the server's cql.kind and cql.clustering_order. */
    static boolean isPartitionKey(SstableFlightColumnHandle column)
    {
        return column.cqlKind().equals("partition_key");
    }

    static boolean isClustering(SstableFlightColumnHandle column)
    {
        return column.cqlKind().startsWith("clustering");
    }

    static boolean isDescending(SstableFlightColumnHandle column)
    {
        return column.cqlKind().equals("clustering desc");
    }

    private static ClusteringSlice.Bound bound(List<String> prefix, String value, boolean inclusive)
    {
        return new ClusteringSlice.Bound(ImmutableList.<String>builder().addAll(prefix).add(value).build(), inclusive);
    }
}
