package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.FixedSplitSource;
import io.trino.spi.predicate.TupleDomain;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.Location;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static io.sstableflight.trino.SstableFlightSessionProperties.getDynamicFilteringWaitTimeout;
import static io.sstableflight.trino.SstableFlightSessionProperties.getScanSplits;
import static io.sstableflight.trino.SstableFlightSessionProperties.isPushdownEnabled;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * One split per endpoint of the server's plan of the table handle's
 * command (its projection, keys, clustering slice and limit). The server
 * fixes the read time and snapshot in each ticket at planning, and every
 * plan names the query (its id), so all splits of all scans of a table in
 * one query read the same data however Cassandra flushes meanwhile.
 *
 * Joins as point reads: a scan whose whole partition key a join's dynamic
 * filter covers waits for the filter (dynamic_filtering_wait_timeout) and,
 * when it holds few enough keys, reads those keys instead of the table,
 * where Trino's cassandra connector scans it whole. A filter that holds no
 * key (an empty build side) plans no split at all.
 *
 * Splits are weighted by their row estimate: the server's endpoints carry
 * none of their own, but the plan's {@code total_records} estimates the
 * whole read, and its endpoints share it evenly (equal token ranges, or
 * key groups), so each split gets its share, relative to
 * {@link #STANDARD_SPLIT_ROWS}.
 */
public final class SstableFlightSplitManager
        implements ConnectorSplitManager
{
    private static final Logger log = Logger.get(SstableFlightSplitManager.class);
    /** The rows of a split of standard weight: what the server puts in one scan endpoint (250,000 rows). */
    static final long STANDARD_SPLIT_ROWS = 250_000;
    /**
     * Keys beyond this share of the table's partitions are read as a scan:
     * a key costs a bloom filter and index lookup in every SSTable, a row of
     * a scan a step of one merge.
     */
    static final double MAX_KEYED_SHARE = 0.25;

    private final FlightClientPool clients;
    private final MetadataCache cache;
    private final TypeMapping typeMapping;

    @Inject
    public SstableFlightSplitManager(FlightClientPool clients, MetadataCache cache, TypeMapping typeMapping)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.cache = requireNonNull(cache, "cache is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
    }

    @Override
    public ConnectorSplitSource getSplits(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableHandle table, DynamicFilter dynamicFilter, Constraint constraint)
    {
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        Optional<List<SstableFlightColumnHandle>> keyColumns = dynamicKeyColumns(session, handle, dynamicFilter);
        if (keyColumns.isPresent()) {
            return new DynamicFilterSplitSource(dynamicFilter, getDynamicFilteringWaitTimeout(session).roundTo(NANOSECONDS),
                    predicate -> plan(session, narrowed(handle, predicate, keyColumns.get())));
        }
        return new FixedSplitSource(plan(session, handle));
    }

    /**
     * The table's columns when a dynamic filter may turn its scan into keys:
     * pushdown is on, nothing is pushed yet but a projection, and the filter
     * covers every partition key column.
     */
    private Optional<List<SstableFlightColumnHandle>> dynamicKeyColumns(ConnectorSession session, SstableFlightTableHandle handle, DynamicFilter filter)
    {
        if (!isPushdownEnabled(session) || handle.restriction().isPresent() || handle.limit().isPresent() || filter.getColumnsCovered().isEmpty()) {
            return Optional.empty();
        }
        ServedTable served = cache.tables().get(handle.unpushed());
        if (served == null) {
            return Optional.empty();
        }
        List<SstableFlightColumnHandle> columns = served.columns(handle.keyspace() + "." + handle.table(), typeMapping);
        boolean covered = columns.stream()
                .filter(Pushdown::isPartitionKey)
                .allMatch(filter.getColumnsCovered()::contains);
        return covered ? Optional.of(columns) : Optional.empty();
    }

    /** A scan narrowed by a dynamic filter's predicate: its keys when it names few enough, else the scan. */
    private Optional<SstableFlightTableHandle> narrowed(SstableFlightTableHandle scan, TupleDomain<ColumnHandle> predicate, List<SstableFlightColumnHandle> columns)
    {
        if (predicate.isNone()) {
            log.debug("%s: the dynamic filter holds no key, nothing to read", scan);
            return Optional.empty();
        }
        Pushdown.Translation translation = Pushdown.translate(predicate, columns);
        if (translation.restriction().isEmpty()) {
            return Optional.of(scan);
        }
        int keys = translation.restriction().get().keys().size();
        OptionalLong partitions = partitions(scan);
        if (partitions.isPresent() && keys > MAX_KEYED_SHARE * partitions.getAsLong()) {
            log.debug("%s: the dynamic filter names %d keys of about %d partitions; scanning", scan, keys, partitions.getAsLong());
            return Optional.of(scan);
        }
        return Optional.of(scan.withRestriction(translation.enforced(), translation.restriction()));
    }

    /** The table's partitions by its statistics, unknown when they are (they are best-effort). */
    private OptionalLong partitions(SstableFlightTableHandle table)
    {
        try {
            return OptionalLong.of(cache.stats(table.unpushed()).partitions());
        }
        catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private List<ConnectorSplit> plan(ConnectorSession session, Optional<SstableFlightTableHandle> handle)
    {
        return handle.map(read -> plan(session, read)).orElse(List.of());
    }

    private List<ConnectorSplit> plan(ConnectorSession session, SstableFlightTableHandle handle)
    {
        FlightCommand command = FlightCommand.of(handle, getScanSplits(session)).forQuery(session.getQueryId());
        if (isOneRoundTrip(handle)) {
            // The command is its own ticket: DoGet plans and streams it in one call, on the first seed that answers.
            List<String> seeds = clients.seeds().stream().map(URI::toString).collect(ImmutableList.toImmutableList());
            return List.of(new SstableFlightSplit(command.toJson(), seeds, keyedRows(handle)));
        }
        FlightClientPool.Planned<FlightInfo> planned = clients.getFlightInfo(command.toJson());
        List<FlightEndpoint> endpoints = planned.value().getEndpoints();
        long rows = rowsPerEndpoint(planned.value().getRecords(), endpoints.size());
        ImmutableList.Builder<ConnectorSplit> splits = ImmutableList.builder();
        for (FlightEndpoint endpoint : endpoints) {
            splits.add(new SstableFlightSplit(endpoint.getTicket().getBytes(), locations(endpoint, planned.server()), rows));
        }
        return splits.build();
    }

    /**
     * Whether a read is one stream a lone server plans itself, so that its
     * command can be DoGet's ticket (docs/flight-api.md, "A command as a
     * ticket"): keys that fit one endpoint, on a server that does not plan
     * over a ring (there the keys' replicas decide where they are read).
     * A point query then costs one round trip, not GetFlightInfo and DoGet.
     */
    private boolean isOneRoundTrip(SstableFlightTableHandle handle)
    {
        if (handle.restriction().isEmpty() || !handle.readsOneStream()) {
            return false;
        }
        ServedTable served = cache.tables().get(handle.unpushed());
        return served != null && !served.ringPlanned();
    }

    /** The rows keys read by the table's kept statistics; -1 (unknown) without them: planning never waits for them. */
    private long keyedRows(SstableFlightTableHandle handle)
    {
        return cache.keptStats(handle.unpushed())
                .map(stats -> stats.rowsOf(handle, true))
                .orElse(-1L);
    }

    /** Each endpoint's share of the plan's row estimate; -1 when the server gave none. */
    static long rowsPerEndpoint(long totalRecords, int endpoints)
    {
        if (totalRecords < 0 || endpoints == 0) {
            return -1;
        }
        return (totalRecords + endpoints - 1) / endpoints;
    }

    /** The endpoint's locations in the server's order; none means the server that planned it (docs/flight-api.md). */
    static List<String> locations(FlightEndpoint endpoint, URI planner)
    {
        List<Location> locations = endpoint.getLocations();
        if (locations.isEmpty()) {
            return List.of(planner.toString());
        }
        return locations.stream()
                .map(location -> location.getUri().toString())
                .collect(ImmutableList.toImmutableList());
    }
}
