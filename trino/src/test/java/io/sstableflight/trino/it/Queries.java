package io.sstableflight.trino.it;

import io.sstableflight.trino.corpus.Canon;
import io.sstableflight.trino.corpus.CorpusTable;
import io.trino.jdbc.StageStats;
import io.trino.jdbc.TrinoResultSet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One catalog's queries through Trino's JDBC driver with pushdown on or
 * off (the session property pushdown_enabled), their rows as Canon texts
 * of a corpus table's columns, their EXPLAIN, and how many splits their
 * table scans ran.
 */
final class Queries
        implements AutoCloseable
{
    private final Connection connection;
    private final CorpusTable table;
    private int leafSplits;

    /** Queries of a corpus table through its format's catalog, sstable_<mode>. */
    Queries(CorpusTable table, boolean pushdown, int scanSplits)
            throws SQLException
    {
        this.table = table;
        String catalog = catalog();
        connection = TestCluster.get().connect();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION %s.pushdown_enabled = %s".formatted(catalog, pushdown));
            statement.execute("SET SESSION %s.scan_splits = %d".formatted(catalog, scanSplits));
        }
    }

    String catalog()
    {
        return "sstable_" + table.mode();
    }

    /** The table's name in SQL: catalog.keyspace.table. */
    String qualified()
    {
        return "%s.%s.%s".formatted(catalog(), table.keyspace(), table.name());
    }

    /**
     * Each row of any query as the text of its values as Trino's JDBC
     * driver prints them, joined by " | ", in the order Trino returned them.
     */
    static List<String> texts(String sql)
            throws SQLException
    {
        List<String> rows = new ArrayList<>();
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            ResultSetMetaData metadata = rs.getMetaData();
            while (rs.next()) {
                List<String> out = new ArrayList<>();
                for (int i = 1; i <= metadata.getColumnCount(); i++) {
                    out.add(rs.getString(i));
                }
                rows.add(String.join(" | ", out));
            }
        }
        return rows;
    }

    /** The rows, each as "column=value ..." in Canon's texts; the leaf stages' splits are kept for {@link #leafSplits}. */
    List<String> rows(String sql)
            throws SQLException
    {
        Canon canon = new Canon(table.udts());
        List<String> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            ResultSetMetaData metadata = rs.getMetaData();
            while (rs.next()) {
                List<String> values = new ArrayList<>();
                for (int i = 1; i <= metadata.getColumnCount(); i++) {
                    String label = metadata.getColumnLabel(i);
                    Optional<CorpusTable.Column> column = column(label);
                    String value = column.isPresent() ? canon.actual(value(rs, i, column.get()), column.get().type()) : String.valueOf(rs.getString(i));
                    values.add(label + "=" + value);
                }
                rows.add(String.join(" ", values));
            }
            leafSplits = rs.unwrap(TrinoResultSet.class).getStats().getRootStage().map(Queries::leafSplits).orElse(-1);
        }
        return rows;
    }

    /** The splits the leaf stages (the table scans) of the last query of {@link #rows} ran. */
    int leafSplits()
    {
        return leafSplits;
    }

    /** The EXPLAIN text of a query. */
    String explain(String sql)
            throws SQLException
    {
        StringBuilder plan = new StringBuilder();
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /** A corpus row of the named columns, in the texts {@link #rows} gives. */
    String expected(Map<String, Object> row, List<String> columns)
    {
        Canon canon = new Canon(table.udts());
        List<String> values = new ArrayList<>();
        for (String name : columns) {
            CorpusTable.Column column = column(name).orElseThrow(() -> new IllegalArgumentException("no column " + name + " in " + table));
            values.add(name + "=" + canon.expected(row.get(name), column.type()));
        }
        return String.join(" ", values);
    }

    private Optional<CorpusTable.Column> column(String name)
    {
        return table.columns().stream().filter(c -> c.name().equals(name)).findFirst();
    }

    private static int leafSplits(StageStats stage)
    {
        if (stage.getSubStages().isEmpty()) {
            return stage.getTotalSplits();
        }
        return stage.getSubStages().stream().mapToInt(Queries::leafSplits).sum();
    }

    /** Temporal values as Trino's text (JDBC's java.sql types shift year-1 dates through the Julian calendar), as CorpusIT reads them. */
    private static Object value(ResultSet rs, int index, CorpusTable.Column column)
            throws SQLException
    {
        return switch (column.type().name()) {
            case "date", "time", "timestamp" -> rs.getString(index);
            default -> rs.getObject(index);
        };
    }

    @Override
    public void close()
            throws SQLException
    {
        connection.close();
    }
}
