package io.sstableflight.trino;

import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.AMBIGUOUS_NAME;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the metadata answers Trino, against a Flight server in the test's
 * JVM whose listing and table-stats the test scripts: a limit is trusted
 * to hold for the whole read only when the server does not plan over a
 * ring; Cassandra names that are not lower case list, describe and
 * resolve, and a table that cannot be described never fails the listing
 * of the others; statistics that fail or come late are unknown; an
 * unmapped column is hidden.
 */
class TestMetadataAnswers
{
    private static final ConnectorSession SESSION = TestingSession.pushdown(true);
    private static final byte[] RING = "{\"planning\":\"ring\",\"consistency\":\"ONE\",\"replicas_read\":1}".getBytes(UTF_8);

    private CatalogFlightServer server;
    private FlightClientPool clients;

    @BeforeEach
    void start()
            throws Exception
    {
        server = new CatalogFlightServer();
        clients = new FlightClientPool(new SstableFlightConfig().setUri(server.uri()));
    }

    @AfterEach
    void stop()
            throws Exception
    {
        clients.close();
        server.close();
    }

    private void serve(String keyspace, String table, byte[] appMetadata, Field... fields)
    {
        server.serve(keyspace, table, new Schema(List.of(fields)), appMetadata);
    }

    private void serve(String keyspace, String table, Field... fields)
    {
        serve(keyspace, table, null, fields);
    }

    private SstableFlightMetadata metadata()
    {
        return metadata(new Duration(2, SECONDS));
    }

    private SstableFlightMetadata metadata(Duration statisticsTimeout)
    {
        MetadataCache cache = new MetadataCache(clients, new Duration(0, SECONDS), statisticsTimeout, com.google.common.base.Ticker.systemTicker());
        return new SstableFlightMetadata(cache, new TypeMapping(VARCHAR, new TypeOperators()));
    }

    private static Field text(String name)
    {
        return new Field(name, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    }

    private static Field key(String name)
    {
        return new Field(name, new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "text", TypeMapping.CQL_KIND, "partition_key")), null);
    }

    private SstableFlightTableHandle handle(SstableFlightMetadata metadata, String schema, String table)
    {
        return (SstableFlightTableHandle) metadata.getTableHandle(SESSION, new SchemaTableName(schema, table), Optional.empty(), Optional.empty());
    }

    @Test
    void aLimitHoldsForTheWholeReadOnlyWhereTheServerPlansOneStream()
    {
        serve("ks", "lone", key("k"));
        serve("ks", "ringed", RING, key("k"));
        SstableFlightMetadata metadata = metadata();
        assertThat(metadata.applyLimit(SESSION, handle(metadata, "ks", "lone"), 10).orElseThrow().isLimitGuaranteed()).isTrue();
        // Planned over a ring, each endpoint stops after the limit: Trino must keep its own.
        assertThat(metadata.applyLimit(SESSION, handle(metadata, "ks", "ringed"), 10).orElseThrow().isLimitGuaranteed()).isFalse();
    }

    @Test
    void appMetadataThatIsNotJsonTrustsNoLimit()
    {
        assertThat(ServedTable.isRingPlan(null)).isFalse();
        assertThat(ServedTable.isRingPlan(new byte[0])).isFalse();
        assertThat(ServedTable.isRingPlan("{\"planning\":\"node\"}".getBytes(UTF_8))).isFalse();
        assertThat(ServedTable.isRingPlan(RING)).isTrue();
        assertThat(ServedTable.isRingPlan("not json".getBytes(UTF_8))).isTrue();
        assertThat(ServedTable.isRingPlan("[1]".getBytes(UTF_8))).isTrue();
    }

    @Test
    void namesThatAreNotLowerCaseListDescribeAndResolve()
    {
        serve("MixedKs", "MyTable", key("Id"), text("Value"));
        serve("plain", "t", key("k"));
        SstableFlightMetadata metadata = metadata();
        assertThat(metadata.listSchemaNames(SESSION)).containsExactly("mixedks", "plain");
        assertThat(metadata.listTables(SESSION, Optional.of("mixedks"))).containsExactly(new SchemaTableName("mixedks", "mytable"));

        SstableFlightTableHandle handle = handle(metadata, "mixedks", "mytable");
        assertThat(handle).isEqualTo(SstableFlightTableHandle.of("MixedKs", "MyTable"));
        assertThat(metadata.getColumnHandles(SESSION, handle)).containsOnlyKeys("id", "value");
        assertThat(((SstableFlightColumnHandle) metadata.getColumnHandles(SESSION, handle).get("value")).name()).isEqualTo("Value");

        // What information_schema.columns and JDBC's getColumns ask: every table, the mixed-case one included.
        assertThat(relations(metadata, Optional.empty()))
                .containsExactly("mixedks.mytable(id, value)", "plain.t(k)");
        assertThat(relations(metadata, Optional.of("mixedks"))).containsExactly("mixedks.mytable(id, value)");
    }

    @Test
    void aTableThatCannotBeDescribedIsLeftOutOfTheColumnListing()
    {
        serve("ks", "good", key("k"));
        // Two tables one Trino name, neither of them lower case: neither can be read, the others still list.
        serve("ks", "Twin", key("k"));
        serve("ks", "TWIN", key("k"));
        // ... but where one of them is the Trino name exactly, that one is read.
        serve("ks", "Pair", key("p"));
        serve("ks", "pair", key("k"));
        // Columns that differ only in case.
        serve("ks", "cased", key("k"), text("v"), text("V"));
        SstableFlightMetadata metadata = metadata();
        assertThat(relations(metadata, Optional.empty())).containsExactly("ks.good(k)", "ks.pair(k)");
        assertThat(metadata.listTables(SESSION, Optional.of("ks"))).containsExactlyInAnyOrder(
                new SchemaTableName("ks", "good"), new SchemaTableName("ks", "twin"), new SchemaTableName("ks", "pair"), new SchemaTableName("ks", "cased"));
        assertThat(handle(metadata, "ks", "pair")).isEqualTo(SstableFlightTableHandle.of("ks", "pair"));
        assertThatThrownBy(() -> handle(metadata, "ks", "twin"))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(AMBIGUOUS_NAME.toErrorCode()));
        assertThatThrownBy(() -> metadata.getColumnHandles(SESSION, handle(metadata, "ks", "cased")))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NOT_SUPPORTED.toErrorCode()))
                .hasMessageContaining("[v, V]");
    }

    @Test
    void aTableDroppedSinceTheListingIsLeftOut()
    {
        serve("ks", "stays", key("k"));
        serve("ks", "goes", key("k"));
        SstableFlightMetadata metadata = metadata();
        assertThat(metadata.listTables(SESSION, Optional.empty())).hasSize(2);
        server.drop("ks", "goes");
        // A name the listing lacks makes the transaction list again; "goes" is then gone from it.
        assertThat(handle(metadata, "ks", "absent")).isNull();
        assertThat(relations(metadata, Optional.empty(), List.of(new SchemaTableName("ks", "stays"), new SchemaTableName("ks", "goes"))))
                .containsExactly("ks.stays(k)");
    }

    @Test
    void statisticsThatFailOrComeLateAreUnknown()
    {
        serve("ks", "t", key("k"));
        SstableFlightMetadata metadata = metadata(new Duration(200, MILLISECONDS));
        SstableFlightTableHandle handle = handle(metadata, "ks", "t");
        assertThat(metadata.getTableStatistics(SESSION, handle).getRowCount().getValue()).isEqualTo(100);

        server.stats = _ -> {
            throw new IllegalStateException("table-stats broke");
        };
        assertThat(metadata.getTableStatistics(SESSION, handle)).isEqualTo(TableStatistics.empty());

        server.stats = _ -> {
            try {
                Thread.sleep(5_000);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "{\"partitions_estimate\":10,\"rows_estimate\":100}";
        };
        long start = System.nanoTime();
        assertThat(metadata.getTableStatistics(SESSION, handle)).isEqualTo(TableStatistics.empty());
        // Bounded by the statistics timeout, not the RPC timeout (30 s) nor the server's 5 s.
        assertThat(System.nanoTime() - start).isLessThan(SECONDS.toNanos(4));
    }

    @Test
    void aServerPlanningOverTheRingEstimatesTheWholeTable()
    {
        serve("ks", "t", RING, key("k"));
        server.stats = _ -> "{\"partitions_estimate\":2000,\"rows_estimate\":2000,\"table_partitions_estimate\":3000,\"table_rows_estimate\":3000,\"estimate_scope\":\"ring\"}";
        SstableFlightMetadata metadata = metadata();
        assertThat(metadata.getTableStatistics(SESSION, handle(metadata, "ks", "t")).getRowCount().getValue()).isEqualTo(3000);
    }

    @Test
    void anUnmappedColumnIsHiddenButKeepsItsHandle()
    {
        Field empty = new Field("e", new FieldType(true, ArrowType.Null.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "'org.apache.cassandra.db.marshal.EmptyType'")), null);
        serve("ks", "t", key("k"), empty);
        SstableFlightMetadata metadata = metadata();
        SstableFlightTableHandle handle = handle(metadata, "ks", "t");
        List<ColumnMetadata> columns = metadata.getTableMetadata(SESSION, handle).getColumns();
        assertThat(columns).extracting(ColumnMetadata::getName).containsExactly("k", "e");
        assertThat(columns).extracting(ColumnMetadata::isHidden).containsExactly(false, true);
        assertThat(((SstableFlightColumnHandle) metadata.getColumnHandles(SESSION, handle).get("e")).unsupported()).isPresent();
    }

    private static List<String> relations(SstableFlightMetadata metadata, Optional<String> schema)
    {
        return relations(metadata, schema, null);
    }

    /** What streamRelationColumns gives, as "schema.table(columns)"; {@code only} replaces the names asked for. */
    private static List<String> relations(SstableFlightMetadata metadata, Optional<String> schema, List<SchemaTableName> only)
    {
        List<String> out = new ArrayList<>();
        Iterator<RelationColumnsMetadata> relations = metadata.streamRelationColumns(SESSION, schema, names -> only == null ? names : new java.util.LinkedHashSet<>(only));
        relations.forEachRemaining(relation -> out.add(relation.name() + "(" + String.join(", ", relation.tableColumns().orElseThrow().stream().map(ColumnMetadata::getName).toList()) + ")"));
        out.sort(null);
        return out;
    }
}
