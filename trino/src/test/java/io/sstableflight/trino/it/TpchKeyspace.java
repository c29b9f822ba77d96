package io.sstableflight.trino.it;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * TPC-H tables written into a keyspace of the live Cassandra node through
 * Trino's own cassandra connector ({@code INSERT ... SELECT} from the tpch
 * catalog, so the rows are those H2 holds for BaseConnectorTest's
 * expected results), flushed by the caller, then copied with their
 * schema.cql into a data directory of their own.
 *
 * The server lists a table's columns in CQL's SELECT * order: partition
 * key, clustering columns in their declared order, then the regular ones
 * alphabetically. BaseConnectorTest compares {@code SELECT *} with H2
 * column by column, so each table keeps TPC-H's order by making its first
 * column the partition key and every other one a clustering column, in
 * order. TPC-H has no nulls (a clustering column cannot hold one) and the
 * first columns of nation, region, customer and orders are unique, so
 * every row is a partition of one row. What that costs: a filter on the
 * first column is pushed as keys, one on the next columns only under it
 * (a clustering slice); other filters stay in Trino, as on any regular
 * column.
 */
final class TpchKeyspace
{
    /** The files of an SSTable (Cassandra 5.0's big and bti formats). */
    private static final Pattern SSTABLE_COMPONENT = Pattern.compile("[a-z]{2}-\\d+-(big|bti)-\\w+\\.(db|txt|crc32)");

    private final String keyspace;
    private final List<TpchTable<?>> tables;

    TpchKeyspace(String keyspace, List<TpchTable<?>> tables)
    {
        this.keyspace = requireNonNull(keyspace, "keyspace is null");
        this.tables = List.copyOf(tables);
    }

    String name()
    {
        return keyspace;
    }

    /** Creates the keyspace and its tables through {@code cassandraCatalog} and copies tpch.tiny's rows into them. */
    void load(Connection trino, String cassandraCatalog)
            throws SQLException, InterruptedException
    {
        CqlThroughTrino.execute(trino, cassandraCatalog, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}".formatted(keyspace));
        for (TpchTable<?> table : tables) {
            CqlThroughTrino.execute(trino, cassandraCatalog, createTable(table));
        }
        for (TpchTable<?> table : tables) {
            String columns = table.getColumns().stream().map(TpchColumn::getSimplifiedColumnName).collect(Collectors.joining(", "));
            CqlThroughTrino.insert(trino, "INSERT INTO %s.%s.%s (%s) SELECT %s FROM tpch.tiny.%s".formatted(cassandraCatalog, keyspace, table.getTableName(), columns, columns, table.getTableName()));
        }
    }

    /**
     * Copies the flushed SSTables of every table from the node's data
     * directory into {@code dataDir}, laid out as Cassandra's
     * ({@code <keyspace>/<table>-<id>/}) with the table's CREATE TABLE as
     * its schema.cql, so that a server over {@code dataDir} serves these
     * tables and nothing else of the shared node.
     */
    void copy(Path nodeDataDir, Path dataDir)
            throws IOException
    {
        for (TpchTable<?> table : tables) {
            Path source = tableDir(nodeDataDir.resolve(keyspace), table.getTableName());
            Path target = Files.createDirectories(dataDir.resolve(keyspace).resolve(source.getFileName()));
            int copied = 0;
            try (Stream<Path> files = Files.list(source)) {
                for (Path file : files.filter(f -> Files.isRegularFile(f) && SSTABLE_COMPONENT.matcher(f.getFileName().toString()).matches()).toList()) {
                    Files.copy(file, target.resolve(file.getFileName()));
                    copied++;
                }
            }
            if (copied == 0) {
                throw new IllegalStateException("no SSTable in %s after the flush".formatted(source));
            }
            Files.writeString(target.resolve("schema.cql"), createTable(table) + ";\n", UTF_8);
        }
    }

    void drop(Connection trino, String cassandraCatalog)
            throws SQLException
    {
        CqlThroughTrino.execute(trino, cassandraCatalog, "DROP KEYSPACE IF EXISTS " + keyspace);
    }

    private String createTable(TpchTable<?> table)
    {
        List<? extends TpchColumn<?>> columns = table.getColumns();
        String definitions = columns.stream()
                .map(column -> column.getSimplifiedColumnName() + " " + cqlType(column))
                .collect(Collectors.joining(", "));
        String clustering = columns.stream().skip(1)
                .map(TpchColumn::getSimplifiedColumnName)
                .collect(Collectors.joining(", "));
        // No compaction, so the files copied after the flush stay whole; no snapshot left in the node when the keyspace is dropped.
        return "CREATE TABLE %s.%s (%s, PRIMARY KEY ((%s), %s)) WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'} AND allow_auto_snapshot = false".formatted(
                keyspace, table.getTableName(), definitions, columns.getFirst().getSimplifiedColumnName(), clustering);
    }

    /** The CQL type of a TPC-H column, as Trino's tpch connector types it (identifiers bigint, decimals double). */
    private static String cqlType(TpchColumn<?> column)
    {
        return switch (column.getType().getBase()) {
            case IDENTIFIER -> "bigint";
            case INTEGER -> "int";
            case DATE -> "date";
            case DOUBLE -> "double";
            case VARCHAR -> "text";
        };
    }

    /** The node's directory of a table: {@code <table>-<id>}, one per table in a fresh keyspace. */
    private static Path tableDir(Path keyspaceDir, String table)
            throws IOException
    {
        try (Stream<Path> dirs = Files.list(keyspaceDir)) {
            List<Path> matches = dirs.filter(dir -> dir.getFileName().toString().matches(Pattern.quote(table) + "-[0-9a-f]{32}")).toList();
            if (matches.size() != 1) {
                throw new IllegalStateException("expected one directory of table %s in %s, found %s".formatted(table, keyspaceDir, matches));
            }
            return matches.getFirst();
        }
    }
}
