package io.sstableflight.trino;

import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;

import static java.util.Objects.requireNonNull;

/**
 * A served table, named as Cassandra stores it (case kept: Trino lower-cases
 * its own names, so the handle carries the real ones).
 */
public record SstableFlightTableHandle(String keyspace, String table)
        implements ConnectorTableHandle
{
    public SstableFlightTableHandle
    {
        requireNonNull(keyspace, "keyspace is null");
        requireNonNull(table, "table is null");
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(keyspace, table);
    }

    @Override
    public String toString()
    {
        return keyspace + "." + table;
    }
}
