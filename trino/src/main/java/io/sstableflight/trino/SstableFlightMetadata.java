package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
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
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

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
 */
public final class SstableFlightMetadata
        implements ConnectorMetadata
{
    private final MetadataCache cache;
    private final TypeMapping typeMapping;
    private Map<SstableFlightTableHandle, Schema> tables;
    private boolean listedNow;

    public SstableFlightMetadata(MetadataCache cache, TypeMapping typeMapping)
    {
        this.cache = requireNonNull(cache, "cache is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
    }

    // One listing per transaction, so that every lookup of a query sees
    // the same tables.
    private synchronized Map<SstableFlightTableHandle, Schema> tables()
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
        return tables().keySet().stream()
                .filter(handle -> schemaName.isEmpty() || handle.keyspace().equalsIgnoreCase(schemaName.get()))
                .map(SstableFlightTableHandle::schemaTableName)
                .collect(ImmutableList.toImmutableList());
    }

    @Override
    public ConnectorTableHandle getTableHandle(ConnectorSession session, SchemaTableName name, Optional<ConnectorTableVersion> startVersion, Optional<ConnectorTableVersion> endVersion)
    {
        if (startVersion.isPresent() || endVersion.isPresent()) {
            throw new TrinoException(io.trino.spi.StandardErrorCode.NOT_SUPPORTED, "sstable_flight tables have no versions");
        }
        return resolve(name).orElse(null);
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
        SstableFlightTableHandle exact = SstableFlightTableHandle.of(name.getSchemaName(), name.getTableName());
        if (tables().containsKey(exact)) {
            return Optional.of(exact);
        }
        List<SstableFlightTableHandle> matches = tables().keySet().stream()
                .filter(handle -> handle.keyspace().equalsIgnoreCase(name.getSchemaName()) && handle.table().equalsIgnoreCase(name.getTableName()))
                .toList();
        if (matches.size() > 1) {
            throw new TrinoException(io.trino.spi.StandardErrorCode.AMBIGUOUS_NAME, "table %s matches several Cassandra tables that differ only in case: %s".formatted(name, matches));
        }
        return matches.stream().findFirst();
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle table)
    {
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        List<ColumnMetadata> columns = columns(handle).stream()
                .map(SstableFlightColumnHandle::columnMetadata)
                .collect(ImmutableList.toImmutableList());
        return new ConnectorTableMetadata(handle.schemaTableName(), columns);
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

    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        Map<SchemaTableName, SstableFlightTableHandle> byName = new LinkedHashMap<>();
        for (SchemaTableName name : listTables(session, schemaName)) {
            byName.put(name, SstableFlightTableHandle.of(name.getSchemaName(), name.getTableName()));
        }
        List<RelationColumnsMetadata> result = new ArrayList<>();
        for (SchemaTableName name : relationFilter.apply(byName.keySet())) {
            List<ColumnMetadata> columns = columns(byName.get(name)).stream()
                    .map(SstableFlightColumnHandle::columnMetadata)
                    .collect(ImmutableList.toImmutableList());
            result.add(RelationColumnsMetadata.forTable(name, columns));
        }
        return result.iterator();
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table)
    {
        SstableFlightTableHandle handle = (SstableFlightTableHandle) table;
        TableStats stats = cache.stats(handle.unpushed());
        return TableStatistics.builder()
                .setRowCount(Estimate.of(stats.rowsOf(handle)))
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
        return Optional.of(new LimitApplicationResult<>(handle.withLimit(limit), handle.readsOneStream(), false));
    }

    /** The columns of a table, in the server's (CQL SELECT *) order. */
    List<SstableFlightColumnHandle> columns(SstableFlightTableHandle table)
    {
        Schema schema = tables().get(table.unpushed());
        if (schema == null) {
            throw new TrinoException(io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND, "table %s is no longer served".formatted(table));
        }
        ImmutableList.Builder<SstableFlightColumnHandle> columns = ImmutableList.builder();
        for (Field field : schema.getFields()) {
            Map<String, String> metadata = Optional.ofNullable(field.getMetadata()).orElse(Map.of());
            String cqlType = metadata.getOrDefault(TypeMapping.CQL_TYPE, "unknown");
            String kind = metadata.getOrDefault(TypeMapping.CQL_KIND, "regular");
            String order = metadata.get(TypeMapping.CQL_CLUSTERING_ORDER);
            if (order != null) {
                kind = kind + " " + order;
            }
            columns.add(SstableFlightColumnHandle.of(field.getName(), cqlType, kind, typeMapping.map(field)));
        }
        return columns.build();
    }
}
