package io.sstableflight.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * What the server reads exactly in place of a filter: the partitions named
 * by {@code keys} (the command's {@code keys}, one value per partition key
 * column, in {@code keyColumns} order) and, within each, the rows of a
 * clustering slice. Values are JSON literals as docs/flight-api.md spells
 * them ({@code 42}, {@code "acme"}, {@code "0x00ff"}), so the handle carries
 * plain strings and the command is written without another translation.
 *
 * @param singleStream whether the server plans these keys as one endpoint
 * (at most 256 keys and 512 KiB of them, docs/flight-api.md), so that a
 * limit on it is a limit on the whole read
 */
public record KeyRestriction(List<String> keyColumns, List<List<String>> keys, Optional<ClusteringSlice> clustering, boolean singleStream)
{
    @JsonCreator
    public KeyRestriction(
            @JsonProperty("keyColumns") List<String> keyColumns,
            @JsonProperty("keys") List<List<String>> keys,
            @JsonProperty("clustering") Optional<ClusteringSlice> clustering,
            @JsonProperty("singleStream") boolean singleStream)
    {
        this.keyColumns = ImmutableList.copyOf(keyColumns);
        this.keys = keys.stream().map(ImmutableList::copyOf).collect(ImmutableList.toImmutableList());
        this.clustering = requireNonNull(clustering, "clustering is null");
        this.singleStream = singleStream;
        if (this.keys.isEmpty()) {
            throw new IllegalArgumentException("a key restriction needs a key");
        }
        for (List<String> key : this.keys) {
            if (key.size() != this.keyColumns.size()) {
                throw new IllegalArgumentException("key %s does not bind every partition key column %s".formatted(key, keyColumns));
            }
        }
    }

    /** The restriction for EXPLAIN: the key columns, the keys (the first few of a long list) and the slice. */
    @Override
    public String toString()
    {
        int shown = Math.min(keys.size(), 5);
        String listed = keys.subList(0, shown).stream()
                .map(key -> "(" + String.join(", ", key) + ")")
                .collect(Collectors.joining(", "));
        // "constraint on": the words Trino's own connectors show a pushed predicate under.
        StringBuilder text = new StringBuilder("constraint on (").append(String.join(", ", keyColumns))
                .append(") keys=").append(keys.size()).append(" in [").append(listed);
        if (shown < keys.size()) {
            text.append(", ...");
        }
        text.append("]");
        clustering.ifPresent(slice -> text.append(" clustering=").append(slice));
        return text.toString();
    }
}
