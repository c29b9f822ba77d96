package io.sstableflight.trino.it;

import io.sstableflight.trino.corpus.Canon;
import io.sstableflight.trino.corpus.CorpusTable;
import io.sstableflight.trino.corpus.ExpectedTypes;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed corpus through Trino: for each format (nb, oa, da), its
 * catalog lists the corpus keyspace and tables, DESCRIBE gives every
 * column in CQL's order with the type docs/trino.md promises, and
 * SELECT * and count(*) give exactly the rows Cassandra returned over
 * CQL (expected.json), value for value.
 *
 * TTLs: the corpus' live TTLs are ten years and its expiring ones one
 * second, written before read_at, so a read any time in the ten years
 * after read_at sees what CQL saw; readAtStillHolds pins that.
 */
@ExtendWith(TestClusterExtension.class)
class CorpusIT
{
    private static final long LIVE_TTL_SECONDS = 315_360_000;

    static Stream<CorpusTable> tables()
    {
        TestCluster cluster = TestCluster.get();
        List<CorpusTable> tables = new ArrayList<>();
        for (String mode : TestCluster.MODES) {
            try {
                tables.addAll(CorpusTable.all(cluster.modeDir(mode), mode));
            }
            catch (IOException e) {
                throw new UncheckedIOException("read corpus " + mode, e);
            }
        }
        return tables.stream();
    }

    @Test
    void showSchemas()
            throws SQLException
    {
        for (String mode : TestCluster.MODES) {
            assertThat(column("SHOW SCHEMAS FROM sstable_" + mode, 1))
                    .as("SHOW SCHEMAS FROM sstable_%s", mode)
                    .containsExactlyInAnyOrder("corpus", "information_schema");
        }
    }

    @Test
    void showTables()
            throws SQLException
    {
        for (String mode : TestCluster.MODES) {
            List<String> expected = tables().filter(t -> t.mode().equals(mode)).map(CorpusTable::name).toList();
            assertThat(expected).as("corpus tables of %s", mode).isNotEmpty();
            assertThat(column("SHOW TABLES FROM sstable_" + mode + ".corpus", 1))
                    .as("SHOW TABLES FROM sstable_%s.corpus", mode)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void describe(CorpusTable table)
            throws SQLException
    {
        List<String> expected = new ArrayList<>();
        for (CorpusTable.Column column : table.columns()) {
            expected.add(column.name() + " " + ExpectedTypes.trino(column.type(), table.udts()));
        }
        List<String> actual = new ArrayList<>();
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("DESCRIBE " + qualified(table))) {
            while (rs.next()) {
                actual.add(rs.getString("Column") + " " + rs.getString("Type"));
                assertThat(rs.getString("Comment")).as("comment of %s", rs.getString("Column")).startsWith("cql ");
            }
        }
        assertThat(actual).as("DESCRIBE %s", qualified(table)).containsExactlyElementsOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void selectStar(CorpusTable table)
            throws SQLException
    {
        Canon canon = new Canon(table.udts());
        List<String> expected = Canon.expectedRows(table);
        List<String> actual = new ArrayList<>();
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT * FROM " + qualified(table))) {
            assertThat(rs.getMetaData().getColumnCount()).isEqualTo(table.columns().size());
            while (rs.next()) {
                List<String> values = new ArrayList<>();
                for (int i = 0; i < table.columns().size(); i++) {
                    CorpusTable.Column column = table.columns().get(i);
                    values.add(column.name() + "=" + canon.actual(value(rs, i + 1, column), column.type()));
                }
                actual.add(String.join(" ", values));
            }
        }
        assertThat(actual).as("SELECT * FROM %s", qualified(table)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void countStar(CorpusTable table)
            throws SQLException
    {
        assertThat(column("SELECT count(*) FROM " + qualified(table), 1))
                .as("count(*) of %s", qualified(table))
                .containsExactly(Long.toString(table.rows().size()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    void readAtStillHolds(CorpusTable table)
    {
        long now = Instant.now().getEpochSecond();
        assertThat(now).as("now against %s's read_at", table).isBetween(table.readAt(), table.readAt() + LIVE_TTL_SECONDS - 86_400);
    }

    /** Temporal values as Trino's text (JDBC's java.sql types shift year-1 dates through the Julian calendar). */
    private static Object value(ResultSet rs, int index, CorpusTable.Column column)
            throws SQLException
    {
        return switch (column.type().name()) {
            case "date", "time", "timestamp" -> rs.getString(index);
            default -> rs.getObject(index);
        };
    }

    private static String qualified(CorpusTable table)
    {
        return "sstable_%s.%s.%s".formatted(table.mode(), table.keyspace(), table.name());
    }

    private static List<String> column(String sql, int index)
            throws SQLException
    {
        List<String> values = new ArrayList<>();
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(index));
            }
        }
        return values;
    }
}
