package io.sstableflight.trino.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

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
