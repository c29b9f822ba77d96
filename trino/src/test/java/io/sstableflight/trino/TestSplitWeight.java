package io.sstableflight.trino;

import io.trino.spi.SplitWeight;
import io.trino.spi.predicate.TupleDomain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Splits weighted by their share of the plan's row estimate, and the estimates of a pushed read. */
class TestSplitWeight
{
    @Test
    void eachEndpointGetsItsShareOfThePlansRows()
    {
        assertThat(SstableFlightSplitManager.rowsPerEndpoint(1_000_000, 4)).isEqualTo(250_000);
        assertThat(SstableFlightSplitManager.rowsPerEndpoint(10, 3)).isEqualTo(4);
        // total_records -1: the server gave no estimate.
        assertThat(SstableFlightSplitManager.rowsPerEndpoint(-1, 3)).isEqualTo(-1);
        assertThat(SstableFlightSplitManager.rowsPerEndpoint(0, 0)).isEqualTo(-1);
    }

    @Test
    void weightIsAShareOfAStandardSplit()
    {
        assertThat(split(SstableFlightSplitManager.STANDARD_SPLIT_ROWS).getSplitWeight()).isEqualTo(SplitWeight.standard());
        assertThat(split(SstableFlightSplitManager.STANDARD_SPLIT_ROWS / 2).getSplitWeight()).isEqualTo(SplitWeight.fromProportion(0.5));
        // A point read is light, but never weightless; a huge split weighs one standard split, as Trino's file connectors cap it.
        assertThat(split(1).getSplitWeight()).isEqualTo(SplitWeight.fromProportion(SstableFlightSplit.MIN_WEIGHT));
        assertThat(split(0).getSplitWeight()).isEqualTo(SplitWeight.fromProportion(SstableFlightSplit.MIN_WEIGHT));
        assertThat(split(100 * SstableFlightSplitManager.STANDARD_SPLIT_ROWS).getSplitWeight()).isEqualTo(SplitWeight.standard());
        assertThat(split(-1).getSplitWeight()).isEqualTo(SplitWeight.standard());
        assertThat(split(42).getSplitInfo()).containsEntry("rowEstimate", "42");
    }

    @Test
    void statisticsFollowWhatIsPushed()
    {
        TableStats stats = new TableStats(100, 1_000);
        SstableFlightTableHandle table = SstableFlightTableHandle.of("corpus", "wide");
        assertThat(stats.rowsOf(table, true)).isEqualTo(1_000);
        KeyRestriction twoKeys = new KeyRestriction(List.of("p"), List.of(List.of("1"), List.of("2")), Optional.empty(), true);
        SstableFlightTableHandle keyed = table.withRestriction(TupleDomain.all(), Optional.of(twoKeys));
        assertThat(stats.rowsOf(keyed, true)).isEqualTo(20);
        assertThat(stats.rowsOf(keyed.withLimit(5), true)).isEqualTo(5);
        assertThat(stats.rowsOf(table.withLimit(5_000), true)).isEqualTo(1_000);
        // Planned over a ring (or keys over several endpoints), the limit is per endpoint, so it bounds nothing overall.
        assertThat(stats.rowsOf(table.withLimit(5), false)).isEqualTo(1_000);
        SstableFlightTableHandle spread = table.withRestriction(TupleDomain.all(), Optional.of(new KeyRestriction(List.of("p"), twoKeys.keys(), Optional.empty(), false)));
        assertThat(stats.rowsOf(spread.withLimit(5), spread.readsOneStream())).isEqualTo(20);
    }

    private static SstableFlightSplit split(long rows)
    {
        return new SstableFlightSplit(new byte[] {1}, List.of("grpc://127.0.0.1:1"), rows);
    }
}
