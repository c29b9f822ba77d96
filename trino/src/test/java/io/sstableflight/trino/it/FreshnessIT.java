package io.sstableflight.trino.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes Cassandra has acknowledged and not flushed, through a real Trino
 * (issue #28): rows inserted through CQL into a table of the harness's
 * live node, never flushed, are in {@code SELECT} through the catalog
 * {@code sstable_live} (its server reads the node's commit log beside the
 * data directory), equal to what Trino's own cassandra connector reads;
 * a row inserted afterwards shows within the freshness bound (the log's
 * poll and the snapshot window, 3 s; 20 s allowed on a loaded machine).
 */
@ExtendWith(TestClusterExtension.class)
class FreshnessIT
{
    private static final String CATALOG = "sstable_live";
    private static final String KEYSPACE = "trino_it_fresh_" + ProcessHandle.current().pid();
    private static final long BOUND_NANOS = 20_000_000_000L;

    @BeforeAll
    static void write()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        cluster.liveKeyspace();
        try (Connection connection = cluster.connect()) {
            cql(connection, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}".formatted(KEYSPACE));
            cql(connection, "CREATE TABLE %s.t (k int PRIMARY KEY, v text) WITH allow_auto_snapshot = false".formatted(KEYSPACE));
            for (int k = 1; k <= 20; k++) {
                cql(connection, "INSERT INTO %s.t (k, v) VALUES (%d, 'v%d')".formatted(KEYSPACE, k, k));
            }
            cql(connection, "DELETE FROM %s.t WHERE k = 7".formatted(KEYSPACE));
        }
    }

    @AfterAll
    static void drop()
            throws Exception
    {
        TestCluster cluster = TestCluster.get();
        try (Connection connection = cluster.connect()) {
            cql(connection, "DROP KEYSPACE IF EXISTS %s".formatted(KEYSPACE));
        }
        LiveCorpus.removeEmptyDirectories(cluster.node().dataDir(), KEYSPACE);
    }

    @Test
    void unflushedRowsAreSelectedAndNewOnesShowWithinTheBound()
            throws Exception
    {
        String ours = "SELECT count(*), sum(k), min(v), max(v) FROM %s.%s.t".formatted(CATALOG, KEYSPACE);
        String theirs = "SELECT count(*), sum(k), min(v), max(v) FROM cassandra.%s.t".formatted(KEYSPACE);
        List<String> want = Queries.texts(theirs);
        assertThat(want).as("Trino's cassandra connector").containsExactly("19 | 203 | v1 | v9");
        awaitEqual(ours, want);

        try (Connection connection = TestCluster.get().connect()) {
            cql(connection, "INSERT INTO %s.t (k, v) VALUES (100, 'v100')".formatted(KEYSPACE));
        }
        long written = System.nanoTime();
        awaitEqual("SELECT v FROM %s.%s.t WHERE k = 100".formatted(CATALOG, KEYSPACE), List.of("v100"));
        System.err.printf("FreshnessIT: a row inserted through CQL showed through %s after %.2f s%n", CATALOG, (System.nanoTime() - written) / 1e9);
    }

    private static void cql(Connection connection, String cql)
            throws SQLException
    {
        CqlThroughTrino.execute(connection, "cassandra", cql);
    }

    /** Waits, up to the bound, until sql gives expected; the last difference fails. */
    private static void awaitEqual(String sql, List<String> expected)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + BOUND_NANOS;
        List<String> last = null;
        Throwable error = null;
        while (System.nanoTime() < deadline) {
            try {
                last = Queries.texts(sql);
                if (last.equals(expected)) {
                    return;
                }
            }
            catch (SQLException e) {
                error = e;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("%s gave %s, not %s, within %d s".formatted(sql, last, expected, BOUND_NANOS / 1_000_000_000L), error);
    }
}
