package io.sstableflight.trino.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #17 through Trino: the harness's three-node cluster, keyspace
 * {@link RingCluster#keyspace()} at RF 2 written through CQL at ALL, a
 * server beside each node, and catalog {@value RingCluster#CATALOG}
 * naming only the first server. {@code count(*)} and {@code SELECT *} equal
 * CQL at consistency ALL (catalog {@value RingCluster#CQL_CATALOG}), every
 * server's DoGet counter moved (the planner gave each a share of the
 * splits), the rows the servers sent add up to the table's (each range read
 * once), and with one server stopped the scan completes through the
 * replicas' servers. The stop runs last: the servers are not restarted.
 *
 * Issue #24 on the same cluster: a LIMIT returns exactly its rows although
 * each endpoint of a ring plan stops after the limit on its own; SHOW
 * STATS estimates the whole table, not the seed's share of it; and a join
 * of a five-row table to the cluster's on its key reads five keys, not
 * the table (the dynamic filter becomes the command's keys).
 */
@ExtendWith(TestClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT
{
    private static final String DO_GET = "sstf_requests_total";
    private static final String ROWS_OUT = "sstf_rows_out_total";

    private static RingCluster ring;
    private static List<String> truth;

    @BeforeAll
    static void start()
            throws SQLException
    {
        ring = TestCluster.get().ring();
        truth = rows("SELECT k, v FROM %s.%s.%s".formatted(RingCluster.CQL_CATALOG, ring.keyspace(), RingCluster.TABLE));
        assertThat(truth).as("CQL at ALL").hasSize(RingCluster.ROWS);
    }

    @Test
    @Order(1)
    void countEqualsCqlAndEveryServerServedSplits()
            throws Exception
    {
        double[] before = metrics(DO_GET, "rpc=\"DoGet\"", "code=\"OK\"");
        assertThat(count(RingCluster.CATALOG)).isEqualTo(count(RingCluster.CQL_CATALOG)).isEqualTo(RingCluster.ROWS);
        double[] after = metrics(DO_GET, "rpc=\"DoGet\"", "code=\"OK\"");
        for (int i = 0; i < before.length; i++) {
            assertThat(after[i] - before[i]).as("DoGet streams of %s for count(*)", ring.serverUri(i)).isPositive();
        }
    }

    @Test
    @Order(2)
    void selectStarEqualsCqlEachRowReadOnceOverEveryServer()
            throws Exception
    {
        double[] streams = metrics(DO_GET, "rpc=\"DoGet\"", "code=\"OK\"");
        double[] sent = metrics(ROWS_OUT);
        assertThat(rows("SELECT k, v FROM %s.%s.%s".formatted(RingCluster.CATALOG, ring.keyspace(), RingCluster.TABLE))).isEqualTo(truth);
        double[] streamsAfter = metrics(DO_GET, "rpc=\"DoGet\"", "code=\"OK\"");
        double[] sentAfter = metrics(ROWS_OUT);
        double total = 0;
        for (int i = 0; i < streams.length; i++) {
            assertThat(streamsAfter[i] - streams[i]).as("DoGet streams of %s", ring.serverUri(i)).isPositive();
            assertThat(sentAfter[i] - sent[i]).as("rows sent by %s", ring.serverUri(i)).isPositive();
            total += sentAfter[i] - sent[i];
        }
        // No range read from two replicas, none skipped: the servers sent the table's rows once.
        assertThat(total).as("rows sent by the three servers").isEqualTo(RingCluster.ROWS);
    }

    @Test
    @Order(3)
    void aLimitReturnsExactlyItsRows()
            throws Exception
    {
        String table = "%s.%s.%s".formatted(RingCluster.CATALOG, ring.keyspace(), RingCluster.TABLE);
        for (int limit : new int[] {1, 10, 1000}) {
            List<String> rows = Queries.texts("SELECT k, v FROM %s LIMIT %d".formatted(table, limit));
            assertThat(rows).as("LIMIT %d", limit).hasSize(limit);
            // Rows of the table, each once.
            assertThat(truth).containsAll(rows.stream().sorted().toList());
            assertThat(Set.copyOf(rows)).hasSize(limit);
            assertThat(Queries.texts("SELECT count(*) FROM (SELECT * FROM %s LIMIT %d)".formatted(table, limit)))
                    .as("count(*) of LIMIT %d", limit)
                    .containsExactly(Integer.toString(limit));
        }
    }

    @Test
    @Order(4)
    void statisticsEstimateTheWholeTable()
            throws Exception
    {
        // SHOW STATS' last row is the table's; its row_count column the fifth.
        List<String> stats = Queries.texts("SHOW STATS FOR %s.%s.%s".formatted(RingCluster.CATALOG, ring.keyspace(), RingCluster.TABLE));
        double rows = Double.parseDouble(stats.getLast().split(" \\| ")[4]);
        assertThat(rows).as("row estimate over the ring (seed alone: about two thirds)").isBetween(0.8 * RingCluster.ROWS, 1.2 * RingCluster.ROWS);
    }

    @Test
    @Order(5)
    void aJoinOnTheKeyReadsTheJoinedKeysOnly()
            throws Exception
    {
        String dimension = ring.keyspace() + ".dim";
        try (Connection connection = TestCluster.get().connect()) {
            CqlThroughTrino.execute(connection, RingCluster.CQL_CATALOG, "CREATE TABLE IF NOT EXISTS %s (k int PRIMARY KEY)".formatted(dimension));
            CqlThroughTrino.insert(connection, "INSERT INTO %s.%s VALUES 7, 1500, 2999, 42, 3000".formatted(RingCluster.CQL_CATALOG, dimension));
        }
        String join = "SELECT kv.k, kv.v FROM %s.%s.%s kv JOIN %s.%s d ON kv.k = d.k".formatted(
                RingCluster.CATALOG, ring.keyspace(), RingCluster.TABLE, RingCluster.CQL_CATALOG, dimension);
        try (Connection connection = TestCluster.get().connect(); Statement statement = connection.createStatement()) {
            // The build side is read first; a loaded machine must not make the probe side give up waiting.
            statement.execute("SET SESSION %s.dynamic_filtering_wait_timeout = '5m'".formatted(RingCluster.CATALOG));
            // kv probes, dim builds, as written: the cassandra catalog gives dim no statistics, so the
            // cost-based optimizer would broadcast kv, whose size it knows, and probe with dim.
            statement.execute("SET SESSION join_reordering_strategy = 'NONE'");
            statement.execute("SET SESSION join_distribution_type = 'BROADCAST'");
            List<String> rows = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery(join)) {
                while (rs.next()) {
                    rows.add(rs.getInt(1) + " | " + rs.getString(2));
                }
            }
            rows.sort(null);
            // 3000 is no key of kv (0..2999): four rows.
            assertThat(rows).containsExactly("1500 | v1500", "2999 | v2999", "42 | v42", "7 | v7");

            String plan = explainAnalyze(statement, join);
            assertThat(scanInputRows(plan, RingCluster.TABLE)).as("rows the scan of kv read, in:%n%s", plan).isEqualTo(4);
            // EXPLAIN ANALYZE shows the filter on the scan of kv, and its values.
            assertThat(plan).containsPattern("\\." + RingCluster.TABLE + ", dynamicFilters = \\{")
                    .containsPattern("Dynamic filters:\\s*\\n[\\s│]*- df_\\d+, \\[ SortedRangeSet\\[type=integer, ranges=5,");
        }
    }

    /** The text of EXPLAIN ANALYZE. */
    static String explainAnalyze(Statement statement, String sql)
            throws SQLException
    {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = statement.executeQuery("EXPLAIN ANALYZE " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /** The "Input: N rows" of the plan node that scans {@code table} (its first such line after the node's name). */
    static long scanInputRows(String plan, String table)
    {
        Matcher node = Pattern.compile("(?:ScanFilterProject|TableScan|ScanFilter|ScanProject)\\[table = [^\\]\\n]*\\." + table + "\\b").matcher(plan);
        assertThat(node.find()).as("a scan of %s in%n%s", table, plan).isTrue();
        Matcher input = Pattern.compile("Input: (\\d+) rows").matcher(plan);
        assertThat(input.find(node.end())).as("the input rows of the scan of %s in%n%s", table, plan).isTrue();
        return Long.parseLong(input.group(1));
    }

    @Test
    @Order(10)
    void withOneServerStoppedTheReplicasServeItsRanges()
            throws Exception
    {
        // The third: the catalog's seed (the first) must stay up to plan.
        ring.stopServer(2);
        double[] sent = metrics(ROWS_OUT, 2);
        assertThat(rows("SELECT k, v FROM %s.%s.%s".formatted(RingCluster.CATALOG, ring.keyspace(), RingCluster.TABLE))).isEqualTo(truth);
        double[] sentAfter = metrics(ROWS_OUT, 2);
        assertThat(sentAfter[0] - sent[0] + sentAfter[1] - sent[1]).as("rows sent by the two servers left").isEqualTo(RingCluster.ROWS);
        assertThat(count(RingCluster.CATALOG)).isEqualTo(RingCluster.ROWS);
    }

    private static long count(String catalog)
            throws SQLException
    {
        List<String> rows = rows("SELECT count(*) FROM %s.%s.%s".formatted(catalog, ring.keyspace(), RingCluster.TABLE));
        return Long.parseLong(rows.getFirst());
    }

    /** The rows of a query, sorted: the two catalogs read in different orders. */
    private static List<String> rows(String sql)
            throws SQLException
    {
        List<String> rows = new ArrayList<>(Queries.texts(sql));
        rows.sort(null);
        return rows;
    }

    private static double[] metrics(String name, String... labels)
            throws Exception
    {
        return metrics(name, ring.nodes().size(), labels);
    }

    /** The metric of the first {@code servers} servers. */
    private static double[] metrics(String name, int servers, String... labels)
            throws Exception
    {
        double[] values = new double[servers];
        for (int i = 0; i < servers; i++) {
            values[i] = ring.metric(i, name, labels);
        }
        return values;
    }
}
