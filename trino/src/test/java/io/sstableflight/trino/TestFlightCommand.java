package io.sstableflight.trino;

import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/** The GetFlightInfo command a table handle plans, and what EXPLAIN shows of it. */
class TestFlightCommand
{
    private static final SstableFlightTableHandle CLUSTERED = SstableFlightTableHandle.of("corpus", "clustered");
    private static final KeyRestriction KEY = new KeyRestriction(
            List.of("tenant", "bucket"),
            List.of(List.of("\"acme\"", "1")),
            Optional.of(new ClusteringSlice(
                    Optional.of(new ClusteringSlice.Bound(List.of("3", "\"c\""), false)),
                    Optional.of(new ClusteringSlice.Bound(List.of("3"), true)))),
            true);

    @Test
    void aWholeTableIsItsNameAlone()
    {
        assertThat(json(CLUSTERED)).isEqualTo("{\"version\":1,\"keyspace\":\"corpus\",\"table\":\"clustered\"}");
        assertThat(CLUSTERED).hasToString("corpus.clustered");
    }

    @Test
    void everythingPushed()
    {
        SstableFlightTableHandle handle = CLUSTERED
                .withColumns(Optional.of(List.of("v", "w")))
                .withRestriction(TupleDomain.all(), Optional.of(KEY))
                .withLimit(10);
        assertThat(json(handle)).isEqualTo("""
                {"version":1,"keyspace":"corpus","table":"clustered","columns":["v","w"],\
                "keys":[{"tenant":"acme","bucket":1}],\
                "clustering":{"start":{"values":[3,"c"],"inclusive":false},"end":{"values":[3],"inclusive":true}},\
                "limit":10}""");
        assertThat(handle).hasToString("corpus.clustered columns=[v, w] constraint on (tenant, bucket) keys=1 in [(\"acme\", 1)] clustering=(3, \"c\" .. 3] limit=10");
    }

    @Test
    void noColumnIsCountOnly()
    {
        SstableFlightTableHandle handle = CLUSTERED.withColumns(Optional.of(List.of()));
        assertThat(json(handle)).isEqualTo("{\"version\":1,\"keyspace\":\"corpus\",\"table\":\"clustered\",\"count_only\":true}");
        assertThat(handle).hasToString("corpus.clustered count_only");
    }

    @Test
    void aLongKeyListShowsItsFirstKeys()
    {
        List<List<String>> keys = java.util.stream.IntStream.range(0, 7).mapToObj(i -> List.of(Integer.toString(i))).toList();
        SstableFlightTableHandle handle = SstableFlightTableHandle.of("corpus", "many")
                .withRestriction(TupleDomain.all(), Optional.of(new KeyRestriction(List.of("id"), keys, Optional.empty(), true)));
        assertThat(handle).hasToString("corpus.many constraint on (id) keys=7 in [(0), (1), (2), (3), (4), ...]");
        assertThat(FlightCommand.of(handle).limit()).isEqualTo(OptionalLong.empty());
    }

    @Test
    void onlyAnUnlimitedScanIsCutIntoSplits()
    {
        assertThat(new String(FlightCommand.of(CLUSTERED, 8).toJson(), UTF_8)).endsWith(",\"splits\":8}");
        assertThat(new String(FlightCommand.of(CLUSTERED, 0).toJson(), UTF_8)).doesNotContain("splits");
        // The server plans a limited scan as one endpoint, which is what makes the limit exact; keys it groups itself.
        assertThat(new String(FlightCommand.of(CLUSTERED.withLimit(3), 8).toJson(), UTF_8)).doesNotContain("splits");
        assertThat(new String(FlightCommand.of(CLUSTERED.withRestriction(TupleDomain.all(), Optional.of(KEY)), 8).toJson(), UTF_8)).doesNotContain("splits");
    }

    @Test
    void aPlanNamesItsQuery()
    {
        assertThat(new String(FlightCommand.of(CLUSTERED, 0).forQuery("20261207_012345_00042_abcde").toJson(), UTF_8))
                .isEqualTo("{\"version\":1,\"keyspace\":\"corpus\",\"table\":\"clustered\",\"query_id\":\"20261207_012345_00042_abcde\"}");
    }

    private static String json(SstableFlightTableHandle handle)
    {
        return new String(FlightCommand.of(handle).toJson(), UTF_8);
    }
}
