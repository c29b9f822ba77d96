package io.sstableflight.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * A served table, named as Cassandra stores it (case kept: Trino lower-cases
 * its own names, so the handle carries the real ones), and what of it the
 * server is asked for: the pushed projection, key restriction and limit.
 *
 * @param columns the columns to read, by name; empty means every column, an
 * empty list means none ({@code count_only}: rows are counted, no value read)
 * @param constraint the part of the query's filter the server enforces
 * exactly (through {@code restriction}); later filters intersect with it
 * @param restriction the keys and clustering slice that enforce {@code constraint}
 * @param limit at most this many rows per endpoint
 */
public record SstableFlightTableHandle(
        String keyspace,
        String table,
        Optional<List<String>> columns,
        TupleDomain<ColumnHandle> constraint,
        Optional<KeyRestriction> restriction,
        OptionalLong limit)
        implements ConnectorTableHandle
{
    @JsonCreator
    public SstableFlightTableHandle(
            @JsonProperty("keyspace") String keyspace,
            @JsonProperty("table") String table,
            @JsonProperty("columns") Optional<List<String>> columns,
            @JsonProperty("constraint") TupleDomain<ColumnHandle> constraint,
            @JsonProperty("restriction") Optional<KeyRestriction> restriction,
            @JsonProperty("limit") OptionalLong limit)
    {
        this.keyspace = requireNonNull(keyspace, "keyspace is null");
        this.table = requireNonNull(table, "table is null");
        this.columns = requireNonNull(columns, "columns is null").map(ImmutableList::copyOf);
        this.constraint = requireNonNull(constraint, "constraint is null");
        this.restriction = requireNonNull(restriction, "restriction is null");
        this.limit = requireNonNull(limit, "limit is null");
    }

    /** The whole table, every column, nothing pushed. */
    public static SstableFlightTableHandle of(String keyspace, String table)
    {
        return new SstableFlightTableHandle(keyspace, table, Optional.empty(), TupleDomain.all(), Optional.empty(), OptionalLong.empty());
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(keyspace, table);
    }

    /** The table's name alone: what ListFlights keys its schema by. */
    public SstableFlightTableHandle unpushed()
    {
        return of(keyspace, table);
    }

    public SstableFlightTableHandle withColumns(Optional<List<String>> columns)
    {
        return new SstableFlightTableHandle(keyspace, table, columns, constraint, restriction, limit);
    }

    public SstableFlightTableHandle withRestriction(TupleDomain<ColumnHandle> constraint, Optional<KeyRestriction> restriction)
    {
        return new SstableFlightTableHandle(keyspace, table, columns, constraint, restriction, limit);
    }

    public SstableFlightTableHandle withLimit(long limit)
    {
        return new SstableFlightTableHandle(keyspace, table, columns, constraint, restriction, OptionalLong.of(limit));
    }

    /** Whether the server plans this read as one endpoint, so that its limit holds for the whole read. */
    public boolean readsOneStream()
    {
        // A limited scan without a split count is planned as one endpoint (docs/flight-api.md).
        return restriction.map(KeyRestriction::singleStream).orElse(true);
    }

    /** What EXPLAIN shows as the table: the table and everything pushed down to the server. */
    @Override
    public String toString()
    {
        StringBuilder text = new StringBuilder(keyspace).append(".").append(table);
        columns.ifPresent(names -> text.append(names.isEmpty() ? " count_only" : " columns=[" + String.join(", ", names) + "]"));
        restriction.ifPresent(keys -> text.append(" ").append(keys));
        limit.ifPresent(rows -> text.append(" limit=").append(rows));
        return text.toString();
    }
}
