package io.sstableflight.trino.it;

import io.sstableflight.trino.corpus.CorpusTable;
import io.sstableflight.trino.corpus.RawJson;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pushdown through a real Trino, for each format (nb, oa, da; the plain
 * run and EXPLAIN of every case in oa only, see queries()): every query
 * here gives the same rows with pushdown on as with it off (the session
 * property pushdown_enabled, which reads every column of every row and
 * filters in Trino, explainShowsProjectionKeysAndLimitPushed), its EXPLAIN shows
 * what was pushed (the table handle: columns=, count_only, keys=,
 * clustering=, limit=), and where the rows can be picked out of
 * expected.json (what CQL returned), they are those.
 *
 * The queries cover keys (equality, IN, composite, '' and non-ASCII text),
 * clustering slices in both orders (corpus.clustered's c_text is DESC),
 * inclusive and exclusive bounds and open ends, a static-only partition,
 * range tombstones (corpus.deletions), projection, count(*) and what must
 * stay in Trino. Scans are cut into several splits (scan_splits), so that
 * a point read's single split means something.
 */
@ExtendWith(TestClusterExtension.class)
class PushdownIT
{
    private static final int SCAN_SPLITS = 4;
    /** The format every case runs in with its plain run and EXPLAIN (queries()). */
    private static final String FULL_MODE = "oa";
    /** What only a pushed table handle shows in EXPLAIN. */
    private static final List<String> PUSHED_MARKS = List.of("columns=[", "count_only", "keys=", "clustering=", "limit=");

    /**
     * A query of one corpus table ({t} is its qualified name), what its
     * EXPLAIN must show, what it must not, and, where it has one, the rows
     * of expected.json it returns (the columns named, or all).
     */
    record Case(String table, String sql, List<String> shows, List<String> hides, Optional<Predicate<Map<String, Object>>> expected, List<String> columns)
    {
        static Case of(String table, String sql, List<String> shows, List<String> hides)
        {
            return new Case(table, sql, shows, hides, Optional.empty(), List.of());
        }

        Case rows(Predicate<Map<String, Object>> rows, String... columns)
        {
            return new Case(table, sql, shows, hides, Optional.of(rows), List.of(columns));
        }

        @Override
        public String toString()
        {
            return sql.replace("{t}", table);
        }
    }

    static List<Case> cases()
    {
        String key = "tenant = 'acme' AND bucket = 1";
        List<Case> cases = new ArrayList<>();
        // Keys.
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key,
                List.of("constraint on (tenant, bucket) keys=1 in [(\"acme\", 1)]"), List.of("clustering=", "columns=["))
                .rows(r -> r.get("tenant").equals("acme") && num(r, "bucket") == 1));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = 'é-unicode' AND bucket = 2",
                List.of("constraint on (tenant, bucket) keys=1 in [(\"é-unicode\", 2)]"), List.of())
                .rows(r -> r.get("tenant").equals("é-unicode") && num(r, "bucket") == 2));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = '' AND bucket = 0",
                List.of("constraint on (tenant, bucket) keys=1 in [(\"\", 0)]"), List.of())
                .rows(r -> r.get("tenant").equals("") && num(r, "bucket") == 0));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant IN ('acme', 'globex', 'nobody') AND bucket IN (0, 2)",
                List.of("constraint on (tenant, bucket) keys=6"), List.of())
                .rows(r -> Set.of("acme", "globex").contains(r.get("tenant")) && Set.of(0L, 2L).contains(num(r, "bucket"))));
        // Clustering, ascending c_int: both bounds, open ends (an open low end starts at the smallest int).
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_int >= 0 AND c_int < 2",
                List.of("clustering=[0 .. 2)"), List.of())
                .rows(r -> r.get("tenant").equals("acme") && num(r, "bucket") == 1 && num(r, "c_int") >= 0 && num(r, "c_int") < 2));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_int <= 0",
                List.of("clustering=[-2147483648 .. 0]"), List.of()));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_int > 1",
                List.of("clustering=(1 .. +inf)"), List.of()));
        // Clustering, descending c_text after c_int's equality: the slice starts at the larger text.
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = 'globex' AND bucket = 2 AND c_int = 1 AND c_text > 'alpha'",
                List.of("clustering=[1 .. 1, \"alpha\")"), List.of())
                .rows(r -> r.get("tenant").equals("globex") && num(r, "bucket") == 2 && num(r, "c_int") == 1 && ((String) r.get("c_text")).compareTo("alpha") > 0));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = 'globex' AND bucket = 2 AND c_int = 0 AND c_text BETWEEN '' AND 'alpha'",
                List.of("clustering=[0, \"alpha\" .. 0, \"\"]"), List.of()));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = 'globex' AND bucket = 2 AND c_int = 2 AND c_text < 'beta'",
                List.of("clustering=(2, \"beta\" .. 2]"), List.of()));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_int = 1 AND c_text = 'beta' AND c_ts >= TIMESTAMP '1970-01-02 00:00:00 UTC'",
                List.of("clustering=[1, \"beta\", 86400000 .. 1, \"beta\"]"), List.of()));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_int = 1 AND c_text = 'beta' AND c_ts = TIMESTAMP '1970-01-02 23:00:00 UTC'",
                List.of("clustering=[1, \"beta\", 169200000 .. 1, \"beta\", 169200000]"), List.of())
                .rows(r -> r.get("tenant").equals("acme") && num(r, "bucket") == 1 && num(r, "c_int") == 1 && r.get("c_text").equals("beta")));
        // A static-only partition: one row of nulls, none with any clustering restriction (as in Trino's filter).
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = 'static-only' AND bucket = 0",
                List.of("keys=1"), List.of())
                .rows(r -> r.get("tenant").equals("static-only")));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant = 'static-only' AND bucket = 0 AND c_int < 100",
                List.of("clustering="), List.of()));
        // What stays in Trino: a gap in the clustering prefix, an IN on a clustering column, a key not wholly bound, a regular column.
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_text = 'alpha'",
                List.of("keys=1"), List.of("clustering=")));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE " + key + " AND c_int IN (0, 2)",
                List.of("keys=1"), List.of("clustering=")));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE bucket = 1",
                List.of(), List.of("keys=")));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE v = 'v-1-beta'",
                List.of(), List.of("keys=")));
        cases.add(Case.of("clustered", "SELECT * FROM {t} WHERE tenant > 'b' AND bucket = 1",
                List.of(), List.of("keys=")));
        // Projection and count(*).
        cases.add(Case.of("clustered", "SELECT v, w FROM {t} WHERE " + key + " AND c_int = 2",
                List.of("columns=[v, w] constraint on (tenant, bucket) keys=1", "clustering=[2 .. 2]"), List.of())
                .rows(r -> r.get("tenant").equals("acme") && num(r, "bucket") == 1 && num(r, "c_int") == 2, "v", "w"));
        cases.add(Case.of("clustered", "SELECT tenant, sum(w) FROM {t} GROUP BY tenant",
                List.of("columns=[tenant, w]"), List.of("keys=")));
        cases.add(Case.of("clustered", "SELECT count(*) FROM {t}",
                List.of("count_only"), List.of("columns=[")));
        cases.add(Case.of("clustered", "SELECT count(*) FROM {t} WHERE tenant = 'acme' AND bucket IN (1, 2)",
                List.of("count_only constraint on (tenant, bucket) keys=2"), List.of()));
        // Other tables: range tombstones and a static-only partition (deletions), text clustering (counters), bigint keys (many).
        cases.add(Case.of("deletions", "SELECT * FROM {t} WHERE p IN (1, 2, 4, 5, 8, 10, 11) AND c >= 3 AND c < 15",
                List.of("constraint on (p) keys=7", "clustering=[3 .. 15)"), List.of())
                .rows(r -> Set.of(1L, 2L, 4L, 5L, 8L, 10L, 11L).contains(num(r, "p")) && r.get("c") != null && num(r, "c") >= 3 && num(r, "c") < 15));
        cases.add(Case.of("deletions", "SELECT * FROM {t} WHERE p = 11",
                List.of("constraint on (p) keys=1 in [(11)]"), List.of())
                .rows(r -> num(r, "p") == 11));
        cases.add(Case.of("deletions", "SELECT p, st, c FROM {t} WHERE p = 11 AND c < 5",
                List.of("clustering=[-2147483648 .. 5)"), List.of()));
        cases.add(Case.of("counters", "SELECT * FROM {t} WHERE id = 1 AND bucket >= 'b'",
                List.of("constraint on (id) keys=1 in [(1)]", "clustering=[\"b\" .. +inf)"), List.of())
                .rows(r -> num(r, "id") == 1 && ((String) r.get("bucket")).compareTo("b") >= 0));
        cases.add(Case.of("wide", "SELECT c, v FROM {t} WHERE p = 1 AND c BETWEEN 10 AND 20",
                List.of("columns=[c, v] constraint on (p) keys=1 in [(1)] clustering=[10 .. 20]"), List.of())
                .rows(r -> num(r, "p") == 1 && num(r, "c") >= 10 && num(r, "c") <= 20, "c", "v"));
        cases.add(Case.of("many", "SELECT * FROM {t} WHERE id IN (2492279, -89315, 488772, 1)",
                List.of("constraint on (id) keys=4"), List.of())
                .rows(r -> Set.of(2492279L, -89315L, 488772L, 1L).contains(num(r, "id"))));
        cases.add(Case.of("all_types", "SELECT id, c_vector, c_duration FROM {t} WHERE id IN (1, 3)",
                List.of("columns=[id, c_duration, c_vector] constraint on (id) keys=2"), List.of())
                .rows(r -> Set.of(1L, 3L).contains(num(r, "id")), "id", "c_vector", "c_duration"));
        cases.add(Case.of("udts", "SELECT addr, tup FROM {t} WHERE id = 2",
                List.of("columns=[addr, tup] constraint on (id) keys=1 in [(2)]"), List.of())
                .rows(r -> num(r, "id") == 2, "addr", "tup"));
        cases.add(Case.of("ttls", "SELECT * FROM {t} WHERE p = 2 AND c > 1",
                List.of("constraint on (p) keys=1 in [(2)] clustering=(1 .. +inf)"), List.of())
                .rows(r -> num(r, "p") == 2 && num(r, "c") > 1));
        return cases;
    }

    /**
     * Every case in {@link #FULL_MODE}; in the other formats only those
     * with expected.json rows, checked against them alone. What a format
     * changes is how the server reads the pushed keys and slices (BIG or
     * BTI index, each format's row layout), and expected.json judges that;
     * EXPLAIN is the connector's plan from the table's metadata, the same
     * in every format, and the plain run is a full scan that CorpusIT
     * already checks in each. This keeps every format's point reads and
     * slices at a third of the queries.
     */
    static Stream<Arguments> queries()
    {
        return TestCluster.MODES.stream().flatMap(mode -> cases().stream()
                .filter(query -> mode.equals(FULL_MODE) || query.expected().isPresent())
                .map(query -> Arguments.of(mode, query)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("queries")
    void pushedEqualsPlain(String mode, Case query)
            throws SQLException
    {
        CorpusTable table = table(mode, query.table());
        // Rows first: a wrong read shows as wrong rows, whatever EXPLAIN says.
        try (Queries on = pushed(table); Queries off = plain(table)) {
            String sql = query.sql().replace("{t}", on.qualified());
            List<String> pushed = on.rows(sql);
            if (query.expected().isPresent()) {
                List<String> columns = query.columns().isEmpty() ? table.columns().stream().map(CorpusTable.Column::name).toList() : query.columns();
                List<String> expected = table.rows().stream().filter(query.expected().get()).map(row -> on.expected(row, columns)).toList();
                assertThat(expected).as("expected.json rows of %s", sql).isNotEmpty();
                assertThat(pushed).as("%s against expected.json", sql).containsExactlyInAnyOrderElementsOf(expected);
            }
            if (!mode.equals(FULL_MODE)) {
                return;
            }
            assertThat(pushed).as("%s with pushdown against without", sql).containsExactlyInAnyOrderElementsOf(off.rows(sql));
            String explain = on.explain(sql);
            for (String shown : query.shows()) {
                assertThat(explain).as("EXPLAIN %s", sql).contains(shown);
            }
            for (String hidden : query.hides()) {
                assertThat(explain).as("EXPLAIN %s", sql).doesNotContain(hidden);
            }
        }
    }

    static List<String> modes()
    {
        return TestCluster.MODES;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aFullyBoundKeyReadsOneSplit(String mode)
            throws SQLException
    {
        CorpusTable many = table(mode, "many");
        try (Queries on = pushed(many); Queries off = plain(many)) {
            String point = "SELECT * FROM " + on.qualified() + " WHERE id = 2492279";
            assertThat(on.rows("SELECT count(*) FROM " + on.qualified())).containsExactly("_col0=520");
            assertThat(on.leafSplits()).as("splits of a scan of %s", on.qualified()).isEqualTo(SCAN_SPLITS);
            assertThat(on.rows(point)).hasSize(1);
            assertThat(on.leafSplits()).as("splits of %s", point).isEqualTo(1);
            assertThat(on.rows("SELECT * FROM " + on.qualified() + " WHERE id IN (2492279, -89315, 488772)")).hasSize(3);
            assertThat(on.leafSplits()).as("splits of three keys").isEqualTo(1);
            // Without pushdown the same query scans every split.
            assertThat(off.rows(point)).hasSize(1);
            assertThat(off.leafSplits()).as("splits of %s without pushdown", point).isEqualTo(SCAN_SPLITS);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aLimitIsTheFirstRowsInTokenAndClusteringOrder(String mode)
            throws SQLException
    {
        CorpusTable clustered = table(mode, "clustered");
        List<String> columns = clustered.columns().stream().map(CorpusTable.Column::name).toList();
        try (Queries on = pushed(clustered)) {
            // expected.json is in CQL's order: token, then clustering.
            String scan = "SELECT * FROM " + on.qualified() + " LIMIT 7";
            assertThat(on.explain(scan)).contains("table = %s:corpus.clustered limit=7".formatted(on.catalog())).doesNotContain("Limit[");
            assertThat(on.rows(scan)).containsExactlyElementsOf(clustered.rows().subList(0, 7).stream().map(row -> on.expected(row, columns)).toList());
            String keyed = "SELECT * FROM " + on.qualified() + " WHERE tenant = 'globex' AND bucket = 2 LIMIT 4";
            assertThat(on.explain(keyed)).contains("constraint on (tenant, bucket) keys=1 in [(\"globex\", 2)] limit=4").doesNotContain("Limit[");
            assertThat(on.rows(keyed)).containsExactlyElementsOf(clustered.rows().stream()
                    .filter(r -> r.get("tenant").equals("globex") && num(r, "bucket") == 2)
                    .limit(4)
                    .map(row -> on.expected(row, columns))
                    .toList());
            assertThat(on.leafSplits()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aFilterAboveALimitStaysAboveIt(String mode)
            throws SQLException
    {
        CorpusTable clustered = table(mode, "clustered");
        // The first five rows in token order are all globex's: none of them is acme's, however the filter is planned.
        assertThat(clustered.rows().subList(0, 5)).allMatch(row -> row.get("tenant").equals("globex"));
        try (Queries on = pushed(clustered)) {
            String sql = "SELECT * FROM (SELECT * FROM %s LIMIT 5) WHERE tenant = 'acme' AND bucket = 1".formatted(on.qualified());
            assertThat(on.rows(sql)).isEmpty();
            assertThat(on.explain(sql)).contains("corpus.clustered limit=5").doesNotContain("keys=");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void explainShowsProjectionKeysAndLimitPushed(String mode)
            throws SQLException
    {
        CorpusTable clustered = table(mode, "clustered");
        try (Queries on = pushed(clustered); Queries off = plain(clustered)) {
            String sql = "SELECT v FROM %s WHERE tenant = 'acme' AND bucket = 1 LIMIT 3".formatted(on.qualified());
            assertThat(on.explain(sql))
                    .contains("table = %s:corpus.clustered columns=[v] constraint on (tenant, bucket) keys=1 in [(\"acme\", 1)] limit=3".formatted(on.catalog()))
                    // The limit holds for the one stream, so Trino keeps no Limit of its own, and no filter.
                    .doesNotContain("Limit[")
                    .doesNotContain("ScanFilter");
            assertThat(on.rows(sql)).hasSize(3);
            // Without pushdown: the bare table, its filter and limit in Trino.
            String plainPlan = off.explain(sql);
            assertThat(plainPlan).contains("table = %s:corpus.clustered,".formatted(off.catalog())).contains("Limit[").contains("ScanFilter");
            for (String mark : PUSHED_MARKS) {
                assertThat(plainPlan).as("EXPLAIN %s without pushdown", sql).doesNotContain(mark);
            }
            assertThat(off.rows(sql)).hasSize(3);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void statisticsEstimateRowsFromTableStats(String mode)
            throws SQLException
    {
        try (Queries on = pushed(table(mode, "many"))) {
            // The server's estimate is an upper bound (a partition in two SSTables counts twice).
            assertThat(rowCount(on.rows("SHOW STATS FOR " + on.qualified()))).isBetween(520.0, 2 * 520.0);
            assertThat(rowCount(on.rows("SHOW STATS FOR (SELECT * FROM %s WHERE id = 2492279)".formatted(on.qualified())))).isBetween(1.0, 2.0);
        }
    }

    private static Queries pushed(CorpusTable table)
            throws SQLException
    {
        return new Queries(table, true, SCAN_SPLITS);
    }

    private static Queries plain(CorpusTable table)
            throws SQLException
    {
        return new Queries(table, false, SCAN_SPLITS);
    }

    /** The row_count of SHOW STATS' summary row (column_name null). */
    private static double rowCount(List<String> stats)
    {
        String summary = stats.stream().filter(row -> row.startsWith("column_name=null ")).findFirst()
                .orElseThrow(() -> new AssertionError("no summary row in " + stats));
        for (String field : summary.split(" ")) {
            if (field.startsWith("row_count=")) {
                return Double.parseDouble(field.substring("row_count=".length()));
            }
        }
        throw new AssertionError("no row_count in " + summary);
    }

    private static CorpusTable table(String mode, String name)
    {
        try {
            return CorpusTable.all(TestCluster.get().modeDir(mode), mode).stream()
                    .filter(t -> t.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no corpus table " + name + " in " + mode));
        }
        catch (IOException e) {
            throw new UncheckedIOException("read corpus " + mode, e);
        }
    }

    private static long num(Map<String, Object> row, String column)
    {
        Object value = row.get(column);
        return Long.parseLong(value instanceof RawJson.Number n ? n.text() : (String) value);
    }
}
