package io.sstableflight.trino;

import io.airlift.units.Duration;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorSplitSource.ConnectorSplitBatch;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static io.sstableflight.trino.SstableFlightSessionProperties.DYNAMIC_FILTERING_WAIT_TIMEOUT;
import static io.sstableflight.trino.SstableFlightSessionProperties.PUSHDOWN_ENABLED;
import static io.sstableflight.trino.SstableFlightSessionProperties.SCAN_SPLITS;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A join's dynamic filter on the partition key turns a scan into keys:
 * against a Flight server in the test's JVM that records the commands it
 * is asked to plan. Planning waits for the filter (the batch's future
 * completes when it does, no thread held), plans keys when it names few
 * enough, a scan when it names many or covers no whole key, and nothing
 * when it names none; a filter that never completes is waited for only up
 * to the session's timeout.
 */
class TestDynamicFilterSplits
{
    private static final Schema SCHEMA = new Schema(List.of(
            new Field("k", new FieldType(false, new ArrowType.Int(64, true), null, Map.of(TypeMapping.CQL_TYPE, "bigint", TypeMapping.CQL_KIND, "partition_key")), null),
            new Field("v", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of(TypeMapping.CQL_TYPE, "text", TypeMapping.CQL_KIND, "regular")), null)));

    private CatalogFlightServer server;
    private FlightClientPool clients;
    private SstableFlightSplitManager splits;
    private SstableFlightColumnHandle key;
    private SstableFlightColumnHandle value;

    @BeforeEach
    void start()
            throws Exception
    {
        server = new CatalogFlightServer();
        server.serve("ks", "kv", SCHEMA);
        partitions(1_000);
        clients = new FlightClientPool(new SstableFlightConfig().setUri(server.uri()));
        TypeMapping typeMapping = new TypeMapping(VARCHAR, new TypeOperators());
        MetadataCache cache = new MetadataCache(clients, new Duration(0, SECONDS), new Duration(5, SECONDS), com.google.common.base.Ticker.systemTicker());
        splits = new SstableFlightSplitManager(clients, cache, typeMapping);
        List<SstableFlightColumnHandle> columns = new SstableFlightMetadata(cache, typeMapping).columns(SstableFlightTableHandle.of("ks", "kv"));
        key = columns.get(0);
        value = columns.get(1);
    }

    @AfterEach
    void stop()
            throws Exception
    {
        clients.close();
        server.close();
    }

    private void partitions(long count)
    {
        server.stats = _ -> "{\"partitions_estimate\":%d,\"rows_estimate\":%d}".formatted(count, count);
    }

    private static ConnectorSession session(String wait)
    {
        return TestingSession.of(Map.of(PUSHDOWN_ENABLED, true, SCAN_SPLITS, 0, DYNAMIC_FILTERING_WAIT_TIMEOUT, Duration.valueOf(wait)));
    }

    private ConnectorSplitSource source(ScriptedDynamicFilter filter, String wait)
    {
        return splits.getSplits(null, session(wait), SstableFlightTableHandle.of("ks", "kv"), filter, Constraint.alwaysTrue());
    }

    private TupleDomain<ColumnHandle> keys(long... values)
    {
        return TupleDomain.withColumnDomains(Map.of(key, Domain.multipleValues(BIGINT, java.util.Arrays.stream(values).boxed().toList())));
    }

    @Test
    void aScanWaitsForTheJoinsKeysAndReadsThem()
            throws Exception
    {
        ScriptedDynamicFilter filter = new ScriptedDynamicFilter(Set.of(key));
        ConnectorSplitSource source = source(filter, "10m");
        CompletableFuture<ConnectorSplitBatch> waiting = source.getNextBatch(100);
        // Nothing is planned while the filter is not complete, and no thread waits for it.
        assertThat(waiting).isNotDone();
        assertThat(server.planned).isEmpty();
        filter.complete(keys(7, 3));
        assertThat(waiting.get(1, MINUTES).getSplits()).isEmpty();
        ConnectorSplitBatch batch = source.getNextBatch(100).get(1, MINUTES);
        assertThat(batch.isNoMoreSplits()).isTrue();
        assertThat(source.isFinished()).isTrue();
        // Two keys are one stream: the command is the split's ticket, DoGet plans it (one round trip).
        assertThat(server.planned).isEmpty();
        SstableFlightSplit split = (SstableFlightSplit) batch.getSplits().getFirst();
        assertThat(batch.getSplits()).hasSize(1);
        assertThat(new String(split.ticket(), UTF_8))
                .startsWith("{")
                .contains("\"keys\":[{\"k\":3},{\"k\":7}]")
                .contains("\"query_id\":\"" + TestingSession.QUERY_ID + "\"");
        assertThat(split.locations()).containsExactly(server.uri());
    }

    @Test
    void keysOverARingArePlanned()
            throws Exception
    {
        server.serve("ks", "kv", SCHEMA, "{\"planning\":\"ring\"}".getBytes(UTF_8));
        ScriptedDynamicFilter filter = new ScriptedDynamicFilter(Set.of(key));
        filter.complete(keys(7, 3));
        drain(source(filter, "10m"));
        // Where the keys are read is the ring's to say: GetFlightInfo plans them.
        assertThat(server.planned).singleElement().asString().contains("\"keys\":[{\"k\":3},{\"k\":7}]");
    }

    @Test
    void aFilterThatNamesNoKeyPlansNothing()
            throws Exception
    {
        ScriptedDynamicFilter filter = new ScriptedDynamicFilter(Set.of(key));
        filter.complete(TupleDomain.none());
        ConnectorSplitBatch batch = source(filter, "10m").getNextBatch(100).get(1, MINUTES);
        assertThat(batch.getSplits()).isEmpty();
        assertThat(batch.isNoMoreSplits()).isTrue();
        assertThat(server.planned).isEmpty();
    }

    @Test
    void aFilterThatDoesNotCompleteIsWaitedForUpToTheTimeout()
            throws Exception
    {
        ScriptedDynamicFilter filter = new ScriptedDynamicFilter(Set.of(key));
        ConnectorSplitSource source = source(filter, "200ms");
        ConnectorSplitBatch batch;
        do {
            batch = source.getNextBatch(100).get(1, MINUTES);
        }
        while (!batch.isNoMoreSplits());
        assertThat(server.planned).singleElement().asString().doesNotContain("\"keys\"");
    }

    @Test
    void manyKeysOrNoWholeKeyAreAScan()
            throws Exception
    {
        // Over a quarter of the table's partitions: reading them by key costs more than the scan.
        partitions(4);
        ScriptedDynamicFilter filter = new ScriptedDynamicFilter(Set.of(key));
        filter.complete(keys(1, 2));
        drain(source(filter, "10m"));
        assertThat(server.planned).singleElement().asString().doesNotContain("\"keys\"");

        // A filter on a regular column only: nothing to wait for, the scan is planned at once.
        server.planned.clear();
        ScriptedDynamicFilter other = new ScriptedDynamicFilter(Set.of(value));
        assertThat(source(other, "10m")).isInstanceOf(FixedSplitSource.class);
        assertThat(server.planned).singleElement().asString().doesNotContain("\"keys\"");
    }

    private static void drain(ConnectorSplitSource source)
            throws Exception
    {
        while (!source.getNextBatch(100).get(1, MINUTES).isNoMoreSplits()) {
            // the filter is complete: the first batch after planning ends it
        }
    }
}
