package flightserver_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/sstable-flight/sstable-flight/flightserver"
)

// TestChunkCacheServesRepeatedPointReads: the second read of a key finds
// its Data.db chunk decompressed already (sstf_chunk_cache_total hit) and
// its position known (sstf_key_cache_total hit: the corpus is BIG),
// returns the same row, and a scan adds no lookups; with the caches off
// there are no such metrics.
func TestChunkCacheServesRepeatedPointReads(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "oa")
	metric := adminMetric(t, ts)
	count := func(result string) int {
		v, _ := strconv.Atoi(metric(`sstf_chunk_cache_total{result="` + result + `"}`))
		return v
	}
	keyHits := func() int {
		v, _ := strconv.Atoi(metric(`sstf_key_cache_total{result="hit"}`))
		return v
	}
	cmd := map[string]any{"version": 1, "keyspace": "corpus", "table": "many", "keys": []any{map[string]any{"id": 2492279}}}
	render := func(r arrow.RecordBatch) []string {
		out := make([]string, r.NumRows())
		for i := range out {
			out[i] = strconv.Itoa(int(r.Column(1).(*array.Int32).Value(i)))
		}
		return out
	}
	first, err := readCommand(ctx, ts.client, cmd, render)
	if err != nil || len(first) != 1 {
		t.Fatalf("first read: %v %v", first, err)
	}
	hits, misses, kh := count("hit"), count("miss"), keyHits()
	if misses == 0 {
		t.Fatalf("first read of a key: %d misses, want some", misses)
	}
	second, err := readCommand(ctx, ts.client, cmd, render)
	if err != nil || len(second) != 1 || second[0] != first[0] {
		t.Fatalf("second read: %v %v, first %v", second, err, first)
	}
	if count("hit") <= hits || count("miss") != misses {
		t.Fatalf("second read: hits %d -> %d, misses %d -> %d; want a hit and no miss", hits, count("hit"), misses, count("miss"))
	}
	if keyHits() != kh+1 {
		t.Fatalf("second read: key cache hits %d -> %d, want one more", kh, keyHits())
	}
	before := count("hit") + count("miss")
	if _, err := readCommand(ctx, ts.client, map[string]any{"version": 1, "keyspace": "corpus", "table": "many"}, render); err != nil {
		t.Fatal(err)
	}
	if after := count("hit") + count("miss"); after != before {
		t.Fatalf("a scan made %d chunk cache lookups", after-before)
	}

	off := startServer(t, "oa", func(c *flightserver.Config) { c.ChunkCacheBytes, c.KeyCacheBytes = -1, -1 })
	for _, name := range []string{"sstf_chunk_cache_bytes", "sstf_key_cache_bytes"} {
		if v := adminMetric(t, off)(name); v != "" {
			t.Fatalf("caches off, yet %s = %s", name, v)
		}
	}
	if got, err := readCommand(ctx, off.client, cmd, render); err != nil || len(got) != 1 || got[0] != first[0] {
		t.Fatalf("read without the cache: %v %v", got, err)
	}
}
