package io.sstableflight.trino.it;

import io.sstableflight.trino.CqlType;
import io.sstableflight.trino.corpus.CorpusTable;
import io.sstableflight.trino.corpus.RawJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ours against Trino's own cassandra connector, in the same Trino, on the
 * same data: the oa corpus in the harness's live Cassandra node
 * (LiveCorpus: the corpus' own SSTables imported), read as catalog
 * {@code cassandra} through the node and as {@code sstable_live} through a
 * server over the node's data directory. The same queries through both
 * must give the same rows: every table's SELECT *, a partition key (and
 * clustering) filter, a filter on a non-key column, aggregates with and
 * without GROUP BY, count(*), and joins. Where both map a column alike its
 * Trino types must be equal; where ours is richer, the conversion
 * docs/trino.md documents brings ours to theirs (CassandraConnectorValues).
 */
@ExtendWith(TestClusterExtension.class)
class DifferentialIT
{
    private static final String THEIRS = "cassandra";
    private static final String OURS = "sstable_live";
    private static final Set<String> ORDERABLE = Set.of("tinyint", "smallint", "int", "bigint", "counter", "float", "double", "text", "ascii", "varchar", "date", "time", "timestamp", "boolean");
    /** Summed as BIGINT without overflow (the corpus' bigints and counters reach 2^63 - 1). */
    private static final Set<String> SUMMABLE = Set.of("tinyint", "smallint", "int");

    static Stream<CorpusTable> tables()
    {
        TestCluster cluster = TestCluster.get();
        try {
            List<CorpusTable> tables = CorpusTable.all(cluster.modeDir(TestCluster.LIVE_MODE), TestCluster.LIVE_MODE).stream()
                    .filter(t -> cluster.liveTables().contains(t.name()))
                    .toList();
            assertThat(tables).as("corpus tables in the live node").hasSameSizeAs(cluster.liveTables()).hasSizeGreaterThanOrEqualTo(17);
            return tables.stream();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void selectStar(CorpusTable table)
            throws SQLException
    {
        assertSameRows(table, "");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void partitionKeyFilter(CorpusTable table)
            throws SQLException
    {
        Map<String, Object> row = table.rows().get(table.rows().size() / 2);
        List<String> conditions = new ArrayList<>();
        for (CorpusTable.Column column : table.columns()) {
            if (column.kind().equals("partition_key") || (column.kind().equals("clustering") && conditions.size() == keyCount(table) && row.get(column.name()) != null)) {
                conditions.add("\"%s\" = %s".formatted(column.name(), literal(row.get(column.name()), column.type())));
            }
        }
        assertThat(assertSameRows(table, " WHERE " + String.join(" AND ", conditions))).as("rows of the key filter").isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void nonKeyFilter(CorpusTable table)
            throws SQLException
    {
        CorpusTable.Column column = table.columns().stream()
                .filter(c -> c.kind().equals("regular") || c.kind().equals("static"))
                .filter(c -> CassandraConnectorValues.theyMap(c.type()))
                .findFirst()
                .orElseThrow();
        Optional<Object> value = table.rows().stream().map(r -> r.get(column.name())).filter(v -> v != null).skip(1).findFirst();
        String condition = ORDERABLE.contains(column.type().name()) && value.isPresent()
                ? "\"%s\" >= %s".formatted(column.name(), literal(value.get(), column.type()))
                : "\"%s\" IS NOT NULL".formatted(column.name());
        assertThat(assertSameRows(table, " WHERE " + condition)).as("rows where %s", condition).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void countStar(CorpusTable table)
            throws SQLException
    {
        String sql = "SELECT count(*) FROM %s." + qualified(table);
        assertThat(texts(sql.formatted(OURS))).as("count(*) of %s", table).containsExactly(Integer.toString(table.rows().size()))
                .isEqualTo(texts(sql.formatted(THEIRS)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void aggregates(CorpusTable table)
            throws SQLException
    {
        List<String> aggregates = new ArrayList<>(List.of("count(*)"));
        for (CorpusTable.Column column : table.columns()) {
            String name = "\"" + column.name() + "\"";
            if (ORDERABLE.contains(column.type().name())) {
                aggregates.addAll(List.of("count(%s)".formatted(name), "min(%s)".formatted(name), "max(%s)".formatted(name)));
            }
            if (SUMMABLE.contains(column.type().name())) {
                aggregates.add("sum(%s)".formatted(name));
            }
            if (column.type().name().equals("decimal")) {
                // The documented conversion, inside an aggregate.
                aggregates.add("max(CAST(%s AS DOUBLE))".formatted(name));
            }
        }
        String all = "SELECT " + String.join(", ", aggregates) + " FROM %s." + qualified(table);
        assertThat(texts(all.formatted(OURS))).as(all).isEqualTo(texts(all.formatted(THEIRS)));

        String key = "\"" + table.columns().getFirst().name() + "\"";
        String grouped = "SELECT %s, %s FROM %%s.%s GROUP BY %s".formatted(key, String.join(", ", aggregates), qualified(table), key);
        List<String> ours = texts(grouped.formatted(OURS));
        assertThat(ours).as(grouped).isNotEmpty().containsExactlyInAnyOrderElementsOf(texts(grouped.formatted(THEIRS)));
    }

    @Test
    void joins()
            throws SQLException
    {
        String keyspace = TestCluster.get().liveKeyspace();
        String samePartitions = ("SELECT a.id, a.c, a.v, b.d, b.n FROM %1$s.%2$s.comp_lz4 a JOIN %1$s.%2$s.comp_zstd b ON a.id = b.id AND a.c = b.c "
                + "WHERE a.c < 20").formatted("%1$s", keyspace);
        List<String> ours = texts(samePartitions.formatted(OURS));
        assertThat(ours).as(samePartitions).hasSizeGreaterThan(20).containsExactlyInAnyOrderElementsOf(texts(samePartitions.formatted(THEIRS)));

        String grouped = ("SELECT d.p, count(*), max(w.v), min(d.st) FROM %1$s.%2$s.deletions d JOIN %1$s.%2$s.wide w ON d.p = w.p GROUP BY d.p").formatted("%1$s", keyspace);
        ours = texts(grouped.formatted(OURS));
        assertThat(ours).as(grouped).isNotEmpty().containsExactlyInAnyOrderElementsOf(texts(grouped.formatted(THEIRS)));

        // Across the catalogs: each of our rows meets exactly its own row of theirs.
        String across = "SELECT count(*), count(t.v) FROM %1$s.%2$s.wide o JOIN %3$s.%2$s.wide t ON o.p = t.p AND o.c = t.c AND o.v = t.v".formatted(OURS, keyspace, THEIRS);
        assertThat(texts(across)).as(across).containsExactly(texts("SELECT count(*), count(v) FROM %s.%s.wide".formatted(OURS, keyspace)).getFirst());
    }

    /**
     * The user's conversion docs/trino.md gives for collections of text,
     * numbers and text-keyed maps: {@code json_format(CAST(c AS JSON))} of
     * ours is exactly the cassandra connector's text.
     */
    @Test
    void jsonFormatOfOursIsTheCassandraConnectorsText()
            throws SQLException
    {
        String keyspace = TestCluster.get().liveKeyspace();
        Map<String, List<String>> columns = Map.of(
                "collections", List.of("fl", "fs", "l", "lset", "m", "nested", "s"),
                "deletions", List.of("m", "s"));
        for (Map.Entry<String, List<String>> table : columns.entrySet()) {
            String key = table.getKey().equals("collections") ? "id" : "p, c";
            String ours = "SELECT %s, %s FROM %s.%s.%s".formatted(key, table.getValue().stream().map(c -> "json_format(CAST(%s AS JSON))".formatted(c)).collect(Collectors.joining(", ")), OURS, keyspace, table.getKey());
            String theirs = "SELECT %s, %s FROM %s.%s.%s".formatted(key, String.join(", ", table.getValue()), THEIRS, keyspace, table.getKey());
            List<String> rows = texts(ours);
            assertThat(rows).as(ours).isNotEmpty().containsExactlyInAnyOrderElementsOf(texts(theirs));
        }
    }

    /**
     * SELECT * (with a WHERE clause, or none) through both catalogs: the
     * column sets (ours has more only where theirs cannot map a type), the
     * Trino types where both map losslessly, and the rows, judged by
     * CassandraConnectorValues. Returns the number of rows.
     */
    private static int assertSameRows(CorpusTable table, String where)
            throws SQLException
    {
        Map<String, String> theirTypes = types(THEIRS, table);
        Map<String, String> ourTypes = types(OURS, table);
        CassandraConnectorValues values = new CassandraConnectorValues(table.udts());
        List<CorpusTable.Column> shared = new ArrayList<>();
        List<String> oursAlone = new ArrayList<>();
        for (CorpusTable.Column column : table.columns()) {
            if (theirTypes.containsKey(column.name())) {
                shared.add(column);
            }
            else {
                oursAlone.add(column.name());
                assertThat(CassandraConnectorValues.theyMap(column.type())).as("the cassandra connector lacks %s.%s (cql %s)", table, column.name(), column.type()).isFalse();
            }
            if (values.sameType(column.type()) && theirTypes.containsKey(column.name())) {
                assertThat(ourTypes.get(column.name())).as("Trino type of %s.%s (cql %s), ours against theirs", table, column.name(), column.type()).isEqualTo(theirTypes.get(column.name()));
            }
        }
        assertThat(ourTypes.keySet()).as("our columns of %s", table).containsExactlyInAnyOrderElementsOf(table.columns().stream().map(CorpusTable.Column::name).toList());
        assertThat(theirTypes).as("their columns of %s", table).hasSize(shared.size());

        String ourSelect = shared.stream().map(c -> CassandraConnectorValues.oursExpression(c.name(), c.type()) + " AS \"" + c.name() + "\"").collect(Collectors.joining(", "));
        String theirSelect = shared.stream().map(c -> "\"" + c.name() + "\"").collect(Collectors.joining(", "));
        List<String> ours = rows("SELECT %s FROM %s.%s%s".formatted(ourSelect, OURS, qualified(table), where), shared, values, false);
        List<String> theirs = rows("SELECT %s FROM %s.%s%s".formatted(theirSelect, THEIRS, qualified(table), where), shared, values, true);
        assertThat(ours).as("rows of %s%s through ours, brought to the cassandra connector's form", table, where).containsExactlyInAnyOrderElementsOf(theirs);
        return ours.size();
    }

    private static int keyCount(CorpusTable table)
    {
        return (int) table.columns().stream().filter(c -> c.kind().equals("partition_key")).count();
    }

    /** Column name to Trino type, as a catalog describes the table. */
    private static Map<String, String> types(String catalog, CorpusTable table)
            throws SQLException
    {
        Map<String, String> types = new LinkedHashMap<>();
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("DESCRIBE %s.%s".formatted(catalog, qualified(table)))) {
            while (rs.next()) {
                types.put(rs.getString("Column"), rs.getString("Type"));
            }
        }
        return types;
    }

    private static List<String> rows(String sql, List<CorpusTable.Column> columns, CassandraConnectorValues values, boolean theirs)
            throws SQLException
    {
        List<String> rows = new ArrayList<>();
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                List<String> out = new ArrayList<>();
                for (int i = 0; i < columns.size(); i++) {
                    CorpusTable.Column column = columns.get(i);
                    // Temporal values as Trino's text: JDBC's java.sql types shift year-1 dates through the Julian calendar.
                    Object value = switch (column.type().name()) {
                        case "date", "time", "timestamp" -> rs.getString(i + 1);
                        default -> rs.getObject(i + 1);
                    };
                    out.add(column.name() + "=" + (theirs ? values.theirs(value, column.type()) : values.ours(value, column.type())));
                }
                rows.add(String.join(" ", out));
            }
        }
        return rows;
    }

    /** Each row as the text of its values, as Trino prints them (for queries whose columns have one type through both catalogs). */
    private static List<String> texts(String sql)
            throws SQLException
    {
        return Queries.texts(sql);
    }

    private static String qualified(CorpusTable table)
    {
        return TestCluster.get().liveKeyspace() + "." + table.name();
    }

    /** A SQL literal of an expected.json value. */
    private static String literal(Object value, CqlType type)
    {
        String text = value instanceof RawJson.Number n ? n.text() : value.toString();
        return switch (type.name()) {
            case "ascii", "text", "varchar" -> "'" + text.replace("'", "''") + "'";
            case "timestamp" -> "TIMESTAMP '%s UTC'".formatted(text.replace('T', ' ').replace("Z", ""));
            case "date" -> "DATE '" + text + "'";
            case "bigint", "counter" -> "BIGINT '" + text + "'";
            case "double" -> "DOUBLE '" + text + "'";
            case "float" -> "REAL '" + text + "'";
            default -> text;
        };
    }
}
