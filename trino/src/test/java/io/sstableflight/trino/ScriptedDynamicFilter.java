package io.sstableflight.trino;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.TupleDomain;

import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** A dynamic filter a test narrows and completes, as Trino does once a join's build side is read. */
final class ScriptedDynamicFilter
        implements DynamicFilter
{
    private final Set<ColumnHandle> covered;
    private final CompletableFuture<?> done = new CompletableFuture<>();
    private volatile TupleDomain<ColumnHandle> predicate = TupleDomain.all();

    ScriptedDynamicFilter(Set<ColumnHandle> covered)
    {
        this.covered = Set.copyOf(covered);
    }

    /** Narrows the filter without completing it. */
    void narrow(TupleDomain<ColumnHandle> predicate)
    {
        this.predicate = predicate;
    }

    void complete(TupleDomain<ColumnHandle> predicate)
    {
        this.predicate = predicate;
        done.complete(null);
    }

    @Override
    public Set<ColumnHandle> getColumnsCovered()
    {
        return covered;
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return done;
    }

    @Override
    public boolean isComplete()
    {
        return done.isDone();
    }

    @Override
    public boolean isAwaitable()
    {
        return !done.isDone();
    }

    @Override
    public TupleDomain<ColumnHandle> getCurrentPredicate()
    {
        return predicate;
    }
}
