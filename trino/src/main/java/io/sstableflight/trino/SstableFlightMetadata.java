package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.log.Logger;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import static io.sstableflight.trino.SstableFlightSessionProperties.isPushdownEnabled;
import static io.trino.spi.StandardErrorCode.AMBIGUOUS_NAME;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static java.util.Objects.requireNonNull;

/**
 * Schemas are keyspaces and tables are the flights ListFlights lists; a
 * table's columns are its Arrow fields in CQL's SELECT * order, typed by
 * {@link TypeMapping}. One instance serves one transaction, so one
 * listing answers every lookup of a query; listings and table-stats come
 * through the catalog's {@link MetadataCache}.
 *
 * Trino lower-cases the names it asks for, Cassandra keeps case: a name
 * matches exactly, else case-insensitively when exactly one name does.
 * Handles always carry the Cassandra names; a Trino name is only ever
 * looked up, never turned into a handle.
 *
 * Statistics are best-effort, as in Trino's own connectors: a table-stats
 * call that fails or outlasts sstable-flight.statistics-timeout makes them
 * unknown, never fails the query.
 */
public final class SstableFlightMetadata
        implements ConnectorMetadata
{
    private static final Logger log = Logger.get(SstableFlightMetadata.class);

    private final MetadataCache cache;
    private final TypeMapping typeMapping;
    private Map<SstableFlightTableHandle, ServedTable> tables;
    private boolean listedNow;

    public SstableFlightMetadata(MetadataCache cache, TypeMapping typeMapping)
    {
        this.cache = requireNonNull(cache, "cache is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
    }

    // One listing per transaction, so that every lookup of a query sees
    // the same tables.
    private synchronized Map<SstableFlightTableHandle, ServedTable> tables()
    {
        if (tables == null) {
            tables = cache.tables();
        }
        return tables;
    }

    // The listing as the server has it now, once per transaction: a name
    // the kept listing lacks may be a table created since.
    private synchronized boolean listNow()
    {
        if (listedNow) {
            return false;
        }
        listedNow = true;
        tables = cache.tablesNow();
        return true;
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session)
    {
        return tables().keySet().stream()
                .map(handle -> handle.keyspace().toLowerCase(Locale.ENGLISH))
                .distinct()
                .sorted()
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName)
    {
        return ImmutableList.copyOf(listed(schemaName).keySet());
    }

    /**
     * The served tables of a schema (or all) by their Trino names, each with
     * the Cassandra table it reads (as {@link #find} resolves it), or none
     * when several differ only in case and none is the name exactly.
     */
    private Map<SchemaTableName, Optional<SstableFlightTableHandle>> listed(Optional<String> schemaName)
    {
        Map<SchemaTableName, Optional<SstableFlightTableHandle>> listed = new LinkedHashMap<>();
        for (SstableFlightTableHandle handle : tables().keySet()) {
            if (schemaName.isEmpty() || handle.keyspace().equalsIgnoreCase(schemaName.get())) {
                listed.merge(handle.schemaTableName(), Optional.of(handle), (_, _) -> Optional.empty());
            }
        }
        listed.replaceAll((name, handle) -> handle.isPresent() ? handle : exactly(name));
        return listed;
    }

    @Override
    public ConnectorTableHandle getTableHandle(ConnectorSession session, SchemaTableName name, Optional<ConnectorTableVersion> startVersion, Optional<ConnectorTableVersion> endVersion)
    {
        Optional<SstableFlightTableHandle> table = resolve(name);
        if (table.isPresent() && (startVersion.isPresent() || endVersion.isPresent())) {
            // A missing table is Trino's "does not exist" first, as in Trino's own connectors.
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support versioned tables");
        }
        return table.orElse(null);
    }

    private Optional<SstableFlightTableHandle> resolve(SchemaTableName name)
    {
        Optional<SstableFlightTableHandle> found = find(name);
        if (found.isEmpty() && listNow()) {
            found = find(name);
        }
        return found;
    }

    private Optional<SstableFlightTableHandle> find(SchemaTableName name)
    {
        Optional<SstableFlightTableHandle> exact = exactly(name);
        if (exact.isPresent()) {
            return exact;
        }
        List<SstableFlightTableHandle> matches = tables().keySet().stream()
                .filter(handle -> handle.keyspace().equalsIgnoreCase(name.getSchemaName()) && handle.table().equalsIgnoreCase(name.getTableName()))
                .toList();
        if (matches.size() > 1) {
            throw new TrinoException(AMBIGUOUS_NAME, "table %s matches several Cassandra tables that differ only in case: %s".formatted(name, matches));
        }
        return matches.stream().findFirst();
    }

    /** The Cassandra table whose names are exactly Trino's (lower case). */
    private Optional<SstableFlightTableHandle> exactly(SchemaTableName name)
    {
        SstableFlightTableHandle exact = SstableFlightTableHandle.of(name.getSchemaName(), name.getTableName());
        return tables().containsKey(exact) ? Optional.of(exact) : Optional.empty();
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle table)
    {
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        return new ConnectorTableMetadata(handle.schemaTableName(), columnMetadata(handle));
    }

    private List<ColumnMetadata> columnMetadata(SstableFlightTableHandle table)
    {
        return columns(table).stream()
                .map(SstableFlightColumnHandle::columnMetadata)
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle table)
    {
        ImmutableMap.Builder<String, ColumnHandle> handles = ImmutableMap.builder();
        for (SstableFlightColumnHandle column : columns((SstableFlightTableHandle) table)) {
            handles.put(column.name().toLowerCase(Locale.ENGLISH), column);
        }
        return handles.buildOrThrow();
    }

    @Override
    public ColumnMetadata getColumnMetadata(ConnectorSession session, ConnectorTableHandle table, ColumnHandle column)
    {
        return ((SstableFlightColumnHandle) column).columnMetadata();
    }

    /**
     * Every table's columns, as information_schema.columns and JDBC's
     * getColumns ask for them (BI tools list a whole catalog this way). A
     * table that cannot be described is left out, logged, rather than
     * failing the listing of every other: two tables whose names differ
     * only in case, a table whose columns do, or one dropped since the
     * listing.
     */
    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        Map<SchemaTableName, Optional<SstableFlightTableHandle>> byName = listed(schemaName);
        List<RelationColumnsMetadata> result = new ArrayList<>();
        for (SchemaTableName name : relationFilter.apply(byName.keySet())) {
            Optional<SstableFlightTableHandle> handle = byName.getOrDefault(name, Optional.empty());
            if (handle.isEmpty()) {
                log.debug("list columns: %s is not served, or names several Cassandra tables that differ only in case; left out", name);
                continue;
            }
            try {
                result.add(RelationColumnsMetadata.forTable(name, columnMetadata(handle.get())));
            }
            catch (TrinoException e) {
                if (!e.getErrorCode().equals(TABLE_NOT_FOUND.toErrorCode()) && !e.getErrorCode().equals(NOT_SUPPORTED.toErrorCode())) {
                    throw e;
                }
                log.debug("list columns: %s left out: %s", name, e.getMessage());
            }
        }
        return result.iterator();
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table)
    {
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        TableStats stats;
        try {
            stats = cache.stats(handle.unpushed());
        }
        catch (RuntimeException e) {
            log.warn("statistics of %s unknown: %s", handle.schemaTableName(), e.getMessage());
            return TableStatistics.empty();
        }
        return TableStatistics.builder()
                .setRowCount(Estimate.of(stats.rowsOf(handle, handle.limit().isPresent() && limitHolds(handle))))
                .build();
    }

    @Override
    public Optional<ProjectionApplicationResult<ConnectorTableHandle>> applyProjection(ConnectorSession session, ConnectorTableHandle table, List<ConnectorExpression> projections, Map<String, ColumnHandle> assignments)
    {
        if (!isPushdownEnabled(session)) {
            return Optional.empty();
        }
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        return Pushdown.projection(handle, columns(handle), assignments.values())
                .map(projected -> new ProjectionApplicationResult<>(
                        projected,
                        projections,
                        assignments.entrySet().stream()
                                .map(assignment -> new Assignment(assignment.getKey(), assignment.getValue(), ((SstableFlightColumnHandle) assignment.getValue()).type()))
                                .collect(ImmutableList.toImmutableList()),
                        false));
    }

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle table, Constraint constraint)
    {
        if (!isPushdownEnabled(session)) {
            return Optional.empty();
        }
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        if (handle.limit().isPresent()) {
            // The filter is above the limit: pushing it below would take the first rows that match instead.
            return Optional.empty();
        }
        TupleDomain<ColumnHandle> filter = handle.constraint().intersect(constraint.getSummary());
        if (filter.isNone()) {
            return Optional.empty();
        }
        Pushdown.Translation translation = Pushdown.translate(filter, columns(handle));
        if (translation.enforced().equals(handle.constraint())) {
            return Optional.empty();
        }
        return Optional.of(new ConstraintApplicationResult<>(
                handle.withRestriction(translation.enforced(), translation.restriction()),
                translation.remaining(),
                constraint.getExpression(),
                false));
    }

    @Override
    public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(ConnectorSession session, ConnectorTableHandle table, long limit)
    {
        if (!isPushdownEnabled(session)) {
            return Optional.empty();
        }
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        // The server reads a limit of 0 as none; Trino answers LIMIT 0 itself.
        if (limit <= 0 || (handle.limit().isPresent() && handle.limit().getAsLong() <= limit)) {
            return Optional.empty();
        }
        SstableFlightTableHandle limited = handle.withLimit(limit);
        return Optional.of(new LimitApplicationResult<>(limited, limitHolds(limited), false));
    }

    /**
     * Whether a handle's limit holds for the whole read, so Trino may drop
     * its own Limit: only when the server plans the read as one stream. A
     * server planning over a ring (its listing's plan says so) stops each
     * endpoint after the limit, and a scan has an endpoint per run of ring
     * ranges: ten rows each from 24 endpoints is 240 rows for a LIMIT 10.
     */
    boolean limitHolds(SstableFlightTableHandle table)
    {
        ServedTable served = tables().get(table.unpushed());
        return served != null && !served.ringPlanned() && table.readsOneStream();
    }

    /** The columns of a table, in the server's (CQL SELECT *) order. */
    List<SstableFlightColumnHandle> columns(SstableFlightTableHandle table)
    {
        ServedTable served = tables().get(table.unpushed());
        if (served == null) {
            throw new TrinoException(TABLE_NOT_FOUND, "table %s is no longer served".formatted(table));
        }
        return served.columns(table.keyspace() + "." + table.table(), typeMapping);
    }
}
