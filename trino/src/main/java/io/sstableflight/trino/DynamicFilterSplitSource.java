package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The splits of a scan that a join's dynamic filter may narrow to keys:
 * planning waits, up to a deadline, for the filter to complete (Trino
 * completes it once the join's build side is read), then plans once with
 * whatever the filter holds by then. The wait never holds a thread: until
 * then each batch is empty and its future completes when the filter
 * narrows or the deadline passes, as Trino's Hive and Iceberg split
 * sources wait for theirs.
 */
final class DynamicFilterSplitSource
        implements ConnectorSplitSource
{
    private final DynamicFilter filter;
    private final long deadlineNanos;
    private final Function<TupleDomain<ColumnHandle>, List<ConnectorSplit>> planner;
    private List<ConnectorSplit> splits;
    private int next;

    /**
     * @param planner the splits of a read narrowed by a filter's predicate
     * (all: the scan; none: no split)
     */
    DynamicFilterSplitSource(DynamicFilter filter, long waitNanos, Function<TupleDomain<ColumnHandle>, List<ConnectorSplit>> planner)
    {
        this.filter = requireNonNull(filter, "filter is null");
        this.deadlineNanos = System.nanoTime() + waitNanos;
        this.planner = requireNonNull(planner, "planner is null");
    }

    @Override
    public synchronized CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        if (splits == null) {
            long remaining = deadlineNanos - System.nanoTime();
            if (!filter.isComplete() && filter.isAwaitable() && remaining > 0) {
                // A future of our own: the filter's may be shared, and must not be completed here.
                CompletableFuture<Object> deadline = new CompletableFuture<>().completeOnTimeout(null, remaining, NANOSECONDS);
                return CompletableFuture.anyOf(filter.isBlocked(), deadline)
                        .thenApply(_ -> new ConnectorSplitBatch(List.of(), false));
            }
            splits = planner.apply(filter.getCurrentPredicate());
        }
        int end = Math.min(splits.size(), next + Math.max(1, maxSize));
        List<ConnectorSplit> batch = ImmutableList.copyOf(splits.subList(next, end));
        next = end;
        return CompletableFuture.completedFuture(new ConnectorSplitBatch(batch, next == splits.size()));
    }

    @Override
    public void close() {}

    @Override
    public synchronized boolean isFinished()
    {
        return splits != null && next == splits.size();
    }
}
