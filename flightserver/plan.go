package flightserver

import (
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// partitionsPerSplit sizes scan splits: enough work per endpoint to
// amortize a stream, small enough to spread over a client's workers.
const partitionsPerSplit = 250_000

// estimate sums the SSTables' partition and row counts (an upper bound:
// a partition in several SSTables counts once per SSTable).
func estimate(readers []*sstable.Reader) (partitions, rows int64) {
	for _, r := range readers {
		for _, b := range r.Stats.Stats.PartitionSizes {
			partitions += b.Count
		}
		rows += r.Stats.Stats.TotalRows
	}
	if rows < partitions {
		rows = partitions
	}
	return partitions, rows
}

// splitRange cuts the token range (start, end] into n contiguous ranges
// of equal width that cover it exactly once: Murmur3 spreads partitions
// uniformly over tokens, so equal widths are equal work. start == end is
// the whole ring; a wrapping range is split as its two pieces.
func splitRange(start, end int64, n int) [][2]int64 {
	if n < 1 {
		n = 1
	}
	if start == end {
		// The whole ring as (min, max]: no real token is MinInt64, which
		// Murmur3Partitioner never returns.
		start, end = math.MinInt64, math.MaxInt64
	}
	if start > end {
		// Wraps: (start, max] then (min, end].
		if n == 1 {
			return [][2]int64{{start, end}}
		}
		width1 := float64(math.MaxInt64) - float64(start)
		width2 := float64(end) - float64(math.MinInt64)
		n1 := max(1, min(n-1, int(float64(n)*width1/(width1+width2))))
		return append(splitRange(start, math.MaxInt64, n1), splitRange(math.MinInt64, end, n-n1)...)
	}
	width := uint64(end - start) // fits: end > start
	if uint64(n) > width {
		n = int(width)
	}
	out := make([][2]int64, 0, n)
	lo := start
	for i := 1; i <= n; i++ {
		hi := end
		if i < n {
			hi = start + int64(width/uint64(n)*uint64(i))
		}
		out = append(out, [2]int64{lo, hi})
		lo = hi
	}
	return out
}

// keysPerTicket bounds the partition keys one endpoint reads: an IN list
// of up to this many keys is a single stream.
const keysPerTicket = 256

// sortByToken orders serialized partition keys as the ring does (token,
// then key bytes).
func sortByToken(keys [][]byte) {
	if len(keys) < 2 {
		return // a point read: nothing to order, nothing to allocate
	}
	tokens := make(map[string]int64, len(keys))
	for _, k := range keys {
		tokens[string(k)] = sstable.Murmur3Token(k)
	}
	slices.SortFunc(keys, func(a, b []byte) int {
		return sstable.CompareDecorated(tokens[string(a)], a, tokens[string(b)], b)
	})
}

// splitCount is the number of splits for a scan of this many partitions.
func splitCount(requested int, partitions int64) int {
	if requested > 0 {
		return requested
	}
	n := int((partitions + partitionsPerSplit - 1) / partitionsPerSplit)
	return max(1, min(n, maxSplits))
}

// endpoint wraps a ticket: no locations, so clients read from this
// server, the one they asked.
func endpoint(t *Ticket) *flight.FlightEndpoint {
	return &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: t.Encode()}}
}

func newTicket(c *Command, now int64, epoch string) *Ticket {
	return &Ticket{Version: TicketVersion, Keyspace: c.Keyspace, Table: c.Table, Columns: c.Columns, Limit: c.Limit, Now: now, Epoch: epoch}
}
