package io.sstableflight.trino.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Cassandra names that are not lower case, and a column the connector
 * cannot map, through a real Trino (issue #24): the harness's live node
 * gets a keyspace {@code "NamesIt<pid>"} (quoted, so its case is kept)
 * holding {@code "MyTable"} with columns {@code "Id"}, {@code "Value"} and
 * {@code plain}, and {@code emptytyped} with an EmptyType column, written
 * through CQL and flushed; the catalog {@code sstable_live} reads them
 * through a server over the node's data directory. The mixed-case table
 * lists, describes, reads and takes its key pushed; the whole catalog's
 * columns list the way BI tools ask for them (information_schema.columns
 * and JDBC's getColumns) with it present, the corpus' tables too; the
 * EmptyType column is hidden, so SELECT * reads the rest, and naming it
 * fails saying why.
 */
@ExtendWith(TestClusterExtension.class)
class NamesIT
{
    private static final String CATALOG = "sstable_live";
    private static final String KEYSPACE = "NamesIt" + ProcessHandle.current().pid();
    private static final String SCHEMA = KEYSPACE.toLowerCase(java.util.Locale.ENGLISH);

    @BeforeAll
    static void write()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        // The live server starts with the corpus, which the catalog then also lists.
        cluster.liveKeyspace();
        try (Connection connection = cluster.connect()) {
            cql(connection, "CREATE KEYSPACE \"%s\" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}".formatted(KEYSPACE));
            cql(connection, "CREATE TABLE \"%s\".\"MyTable\" (\"Id\" int PRIMARY KEY, \"Value\" text, plain int) WITH allow_auto_snapshot = false".formatted(KEYSPACE));
            cql(connection, "CREATE TABLE \"%s\".emptytyped (k int PRIMARY KEY, v text, e 'org.apache.cassandra.db.marshal.EmptyType') WITH allow_auto_snapshot = false".formatted(KEYSPACE));
            for (int id = 1; id <= 3; id++) {
                cql(connection, "INSERT INTO \"%s\".\"MyTable\" (\"Id\", \"Value\", plain) VALUES (%d, 'v%d', %d)".formatted(KEYSPACE, id, id, 10 * id));
                cql(connection, "INSERT INTO \"%s\".emptytyped (k, v) VALUES (%d, 'e%d')".formatted(KEYSPACE, id, id));
            }
        }
        try (CassandraJmx jmx = new CassandraJmx(cluster.node().jmxPort())) {
            jmx.flush(KEYSPACE);
        }
        // By their key columns' names, which only Cassandra's schema gives (SSTable headers call them key).
        awaitListed("SELECT count(id) FROM %s.%s.mytable".formatted(CATALOG, SCHEMA), "3");
        awaitListed("SELECT count(k) FROM %s.%s.emptytyped".formatted(CATALOG, SCHEMA), "3");
    }

    @AfterAll
    static void drop()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        try (Connection connection = cluster.connect()) {
            cql(connection, "DROP KEYSPACE IF EXISTS \"%s\"".formatted(KEYSPACE));
        }
        LiveCorpus.removeEmptyDirectories(cluster.node().dataDir(), KEYSPACE);
    }

    @Test
    void aMixedCaseTableListsDescribesAndReads()
            throws SQLException
    {
        assertThat(Queries.texts("SHOW SCHEMAS FROM " + CATALOG)).contains(SCHEMA);
        assertThat(Queries.texts("SHOW TABLES FROM %s.%s".formatted(CATALOG, SCHEMA))).containsExactlyInAnyOrder("mytable", "emptytyped");
        assertThat(Queries.texts("SELECT column_name FROM %s.information_schema.columns WHERE table_schema = '%s' AND table_name = 'mytable'".formatted(CATALOG, SCHEMA)))
                .containsExactlyInAnyOrder("id", "value", "plain");
        assertThat(Queries.texts("SELECT id, value, plain FROM %s.%s.mytable ORDER BY id".formatted(CATALOG, SCHEMA)))
                .containsExactly("1 | v1 | 10", "2 | v2 | 20", "3 | v3 | 30");
        // The key is pushed by its Cassandra name ("Id"), which the server matches exactly.
        String keyed = "SELECT value FROM %s.%s.mytable WHERE id = 2".formatted(CATALOG, SCHEMA);
        assertThat(Queries.texts(keyed)).containsExactly("v2");
        assertThat(String.join("\n", Queries.texts("EXPLAIN " + keyed))).contains("constraint on (Id) keys=1 in [(2)]");
    }

    @Test
    void theWholeCatalogsColumnsListAsBiToolsAskForThem()
            throws SQLException
    {
        List<String> columns = Queries.texts("SELECT table_schema || '.' || table_name || '.' || column_name FROM %s.information_schema.columns".formatted(CATALOG));
        assertThat(columns).contains(SCHEMA + ".mytable.id", SCHEMA + ".mytable.value", SCHEMA + ".emptytyped.v");
        // The corpus' tables list beside them.
        assertThat(columns).anyMatch(column -> column.startsWith(TestCluster.get().liveKeyspace() + "."));

        List<String> jdbc = new ArrayList<>();
        try (Connection connection = TestCluster.get().connect()) {
            DatabaseMetaData metadata = connection.getMetaData();
            try (ResultSet rs = metadata.getColumns(CATALOG, null, null, null)) {
                while (rs.next()) {
                    jdbc.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + "." + rs.getString("COLUMN_NAME"));
                }
            }
            try (ResultSet rs = metadata.getTables(CATALOG, SCHEMA, null, null)) {
                List<String> tables = new ArrayList<>();
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_NAME"));
                }
                assertThat(tables).containsExactlyInAnyOrder("mytable", "emptytyped");
            }
        }
        assertThat(jdbc).contains(SCHEMA + ".mytable.id", SCHEMA + ".mytable.plain");
    }

    @Test
    void aColumnWithNoTrinoTypeIsHidden()
            throws SQLException
    {
        String table = "%s.%s.emptytyped".formatted(CATALOG, SCHEMA);
        assertThat(Queries.texts("SELECT * FROM %s ORDER BY k".formatted(table))).containsExactly("1 | e1", "2 | e2", "3 | e3");
        assertThat(Queries.texts("DESCRIBE " + table)).noneMatch(line -> line.startsWith("e |"));
        assertThatThrownBy(() -> Queries.texts("SELECT e FROM " + table))
                .hasMessageContaining("column e of")
                .hasMessageContaining("cannot be read");
    }

    private static void cql(Connection connection, String cql)
            throws SQLException
    {
        CqlThroughTrino.execute(connection, "cassandra", cql);
    }

    /** Waits, up to a minute, until the live server serves what was written (it follows the node's schema and its flushes). */
    private static void awaitListed(String sql, String expected)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + 60_000_000_000L;
        Throwable last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (Queries.texts(sql).equals(List.of(expected))) {
                    return;
                }
            }
            catch (SQLException e) {
                last = e;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("%s did not give %s within a minute".formatted(sql, expected), last);
    }
}
