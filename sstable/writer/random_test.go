package writer_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/sstable/writer"
	"github.com/sstable-flight/sstable-flight/token"
)

const mt = "org.apache.cassandra.db.marshal."

// randomHeader is a header of random shape: int or text keys, zero to
// three clustering columns (one possibly reversed), a static column or
// none, simple columns of fixed and variable width, a non-frozen set.
func randomHeader(r *rand.Rand) metadata.SerializationHeader {
	h := metadata.SerializationHeader{
		MinTimestamp:         1_700_000_000_000_000 + r.Int64N(1000),
		MinLocalDeletionTime: 1_700_000_000 + r.Int64N(1000),
		MinTTL:               r.Int64N(3),
		KeyType:              []string{mt + "Int32Type", mt + "UTF8Type"}[r.IntN(2)],
	}
	cl := []string{mt + "Int32Type", mt + "UTF8Type", mt + "ReversedType(" + mt + "LongType)"}
	for i := range r.IntN(4) {
		h.ClusteringTypes = append(h.ClusteringTypes, cl[(i+r.IntN(3))%3])
	}
	if r.IntN(2) == 0 {
		h.StaticColumns = []metadata.ColumnType{{Name: "s", Type: mt + "Int32Type"}}
	}
	h.RegularColumns = []metadata.ColumnType{
		{Name: "v", Type: mt + "UTF8Type"},
		{Name: "n", Type: mt + "LongType"},
		{Name: "tags", Type: mt + "SetType(" + mt + "Int32Type)"},
		{Name: "b", Type: mt + "BooleanType"},
	}
	return h
}

type partition struct {
	key []byte
	del sstable.DeletionTime
	us  []sstable.Unfiltered
}

func randValue(r *rand.Rand, t *marshal.Type) []byte {
	if w := t.FixedLength(); w >= 0 {
		b := make([]byte, w)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		if t.FixedLength() == 1 {
			b[0] &= 1
		}
		return b
	}
	b := make([]byte, r.IntN(12))
	for i := range b {
		b[i] = 'a' + byte(r.IntN(26))
	}
	return b
}

func randDeletion(r *rand.Rand, h *metadata.SerializationHeader) sstable.DeletionTime {
	return sstable.DeletionTime{MarkedForDeleteAt: h.MinTimestamp + r.Int64N(1e6), LocalDeletionTime: h.MinLocalDeletionTime + r.Int64N(1e5)}
}

// randomPartitions draws partitions of random rows, cells, deletions,
// TTLs and range tombstones, in token and clustering order.
func randomPartitions(r *rand.Rand, h *metadata.SerializationHeader, s *sstable.Schema) []partition {
	var ps []partition
	seen := map[string]bool{}
	for range 1 + r.IntN(300) {
		var key []byte
		if s.Key.FixedLength() == 4 {
			key = binary.BigEndian.AppendUint32(nil, r.Uint32())
		} else {
			key = randValue(r, s.Key)
			key = append(key, 'k')
		}
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		p := partition{key: key, del: sstable.LiveDeletion}
		if r.IntN(5) == 0 {
			p.del = randDeletion(r, h)
		}
		if len(s.Static) > 0 && r.IntN(2) == 0 {
			p.us = append(p.us, randomRow(r, h, s, true, nil))
		}
		// Distinct clusterings, sorted.
		var rows []sstable.Unfiltered
		n := r.IntN(8)
		if r.IntN(10) == 0 {
			n = 100 + r.IntN(300) // several row index blocks
		}
		if len(s.Clustering) == 0 {
			n = min(n, 1)
		}
		for range n {
			var c [][]byte
			for _, t := range s.Clustering {
				c = append(c, randValue(r, t))
			}
			rows = append(rows, randomRow(r, h, s, false, c))
		}
		slices.SortFunc(rows, func(a, b sstable.Unfiltered) int { return compareClustering(s, a.Clustering, b.Clustering) })
		rows = slices.CompactFunc(rows, func(a, b sstable.Unfiltered) bool { return compareClustering(s, a.Clustering, b.Clustering) == 0 })
		// Range tombstones over disjoint runs of rows: an inclusive start
		// at a row's clustering, an inclusive end at a later (or the
		// same) row's.
		for i := 0; i < len(rows); i++ {
			if len(s.Clustering) == 0 || r.IntN(4) != 0 {
				p.us = append(p.us, rows[i])
				continue
			}
			j := i + r.IntN(len(rows)-i)
			d := randDeletion(r, h)
			p.us = append(p.us, sstable.Unfiltered{Marker: true, Kind: sstable.InclStartBound, Clustering: rows[i].Clustering, MarkerDel: d})
			p.us = append(p.us, rows[i:j+1]...)
			p.us = append(p.us, sstable.Unfiltered{Marker: true, Kind: sstable.InclEndBound, Clustering: rows[j].Clustering, MarkerDel: d})
			i = j
		}
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b partition) int {
		return token.CompareDecorated(token.Of(a.key), a.key, token.Of(b.key), b.key)
	})
	return ps
}

func compareClustering(s *sstable.Schema, a, b [][]byte) int {
	for i := range a {
		if c := marshal.Compare(s.Clustering[i], a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func randomRow(r *rand.Rand, h *metadata.SerializationHeader, s *sstable.Schema, static bool, c [][]byte) sstable.Unfiltered {
	u := sstable.Unfiltered{Static: static, Clustering: c, Liveness: sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}, Deletion: sstable.LiveDeletion}
	if !static && r.IntN(4) != 0 {
		u.Liveness.Timestamp = h.MinTimestamp + r.Int64N(1e6)
		if r.IntN(4) == 0 {
			u.Liveness.TTL = h.MinTTL + 1 + r.Int64N(1e5)
			u.Liveness.LocalExpirationTime = h.MinLocalDeletionTime + r.Int64N(1e6)
		}
	}
	if !static && r.IntN(8) == 0 {
		u.Deletion = randDeletion(r, h)
		u.Shadowable = r.IntN(4) == 0
	}
	cols := s.Columns(static)
	for ci, col := range cols {
		if r.IntN(3) == 0 {
			continue
		}
		if col.Complex {
			if r.IntN(3) == 0 {
				u.Complex = append(u.Complex, sstable.ComplexDeletion{Column: ci, Deletion: randDeletion(r, h)})
			}
			var paths [][]byte
			for range r.IntN(4) {
				paths = append(paths, randValue(r, col.PathType))
			}
			slices.SortFunc(paths, func(a, b []byte) int { return marshal.Compare(col.PathType, a, b) })
			paths = slices.CompactFunc(paths, bytes.Equal)
			for _, p := range paths {
				cl := randomCell(r, h, &u, ci)
				cl.Path, cl.Value = p, []byte{}
				u.Cells = append(u.Cells, cl)
			}
			continue
		}
		cl := randomCell(r, h, &u, ci)
		if !cl.IsTombstone() {
			cl.Value = randValue(r, col.Type)
		}
		u.Cells = append(u.Cells, cl)
	}
	return u
}

func randomCell(r *rand.Rand, h *metadata.SerializationHeader, u *sstable.Unfiltered, ci int) sstable.Cell {
	cl := sstable.Cell{Column: ci, Timestamp: h.MinTimestamp + r.Int64N(1e6), Value: []byte{}}
	if u.Liveness.Timestamp != sstable.NoTimestamp && r.IntN(2) == 0 {
		cl.Timestamp = u.Liveness.Timestamp
	}
	switch r.IntN(5) {
	case 0:
		cl.Flags = 0x01 // tombstone
		cl.LocalDeletionTime = h.MinLocalDeletionTime + r.Int64N(1e6)
	case 1:
		cl.Flags = 0x02 // expiring
		cl.TTL, cl.LocalDeletionTime = h.MinTTL+1+r.Int64N(1e5), h.MinLocalDeletionTime+r.Int64N(1e6)
		if u.Liveness.TTL != 0 && r.IntN(2) == 0 {
			cl.TTL, cl.LocalDeletionTime = u.Liveness.TTL, u.Liveness.LocalExpirationTime
		}
	}
	return cl
}

// TestRandomRoundTrip writes random partitions and reads them back
// equal, by scan and by key.
func TestRandomRoundTrip(t *testing.T) {
	for seed := range uint64(60) {
		randomRoundTrip(t, seed)
	}
}

// FuzzRoundTrip is TestRandomRoundTrip over fuzzed seeds.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(1000))
	f.Fuzz(randomRoundTrip)
}

func randomRoundTrip(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 42))
	h := randomHeader(r)
	s, err := sstable.NewSchema(h)
	must(t, err)
	ps := randomPartitions(r, &h, s)
	mem := writer.NewMemory()
	w, err := writer.New(mem, writer.Options{Header: h, MinIndexInterval: 1 + r.IntN(8)})
	must(t, err)
	for _, p := range ps {
		must(t, w.StartPartition(p.key, p.del))
		for i := range p.us {
			must(t, w.Add(&p.us[i]))
		}
	}
	must(t, w.Finish())
	got, err := sstable.Open(w.DataFile(), sstable.Options{FS: mem})
	must(t, err)
	defer got.Close()
	must(t, got.VerifyIndexes())
	sc := got.Scan()
	for i := 0; sc.NextPartition(); i++ {
		check(t, i < len(ps), "seed %d: more partitions than written", seed)
		comparePartition(t, seed, &ps[i], sc)
	}
	must(t, sc.Err())
	sc.Release()
	for i := range ps {
		compareSlice(t, r, got, s, &ps[i])
		g, err := got.Get(ps[i].key)
		must(t, err)
		check(t, g.NextPartition(), "seed %d: Get %x found nothing: %v", seed, ps[i].key, g.Err())
		comparePartition(t, seed, &ps[i], g)
		g.Release()
	}
}

func comparePartition(t *testing.T, seed uint64, p *partition, sc *sstable.Scanner) {
	t.Helper()
	ph := sc.Partition()
	check(t, bytes.Equal(ph.Key, p.key) && ph.Deletion == p.del, "seed %d: partition %x %+v, want %x %+v", seed, ph.Key, ph.Deletion, p.key, p.del)
	j := 0
	for sc.NextUnfiltered() {
		u := sc.Unfiltered()
		if u.Static && len(u.Cells) == 0 && (j >= len(p.us) || !p.us[j].Static) {
			continue // the empty static row written for a partition without one
		}
		check(t, j < len(p.us), "seed %d: partition %x: more unfiltereds than written", seed, p.key)
		equal(t, semantic(p.us[j]), semantic(*u), "seed ", seed)
		j++
	}
	must(t, sc.Err())
	check(t, j == len(p.us), "seed %d: partition %x: %d unfiltereds, wrote %d", seed, p.key, j, len(p.us))
}

// semantic is what an unfiltered means, without encoding choices (cell
// flags the writer picks, positions, buffer reuse).
func semantic(u sstable.Unfiltered) sstable.Unfiltered {
	out := sstable.Unfiltered{Marker: u.Marker, Static: u.Static}
	for _, c := range u.Clustering {
		out.Clustering = append(out.Clustering, bytes.Clone(c))
	}
	if u.Marker {
		out.Kind, out.MarkerDel, out.MarkerEndDel = u.Kind, u.MarkerDel, u.MarkerEndDel
		return out
	}
	out.Liveness, out.Deletion, out.Shadowable = u.Liveness, u.Deletion, u.Shadowable && !u.Deletion.Live()
	for _, c := range u.Cells {
		c.Flags &= 0x03
		c.Path, c.Value = bytes.Clone(c.Path), bytes.Clone(c.Value)
		if len(c.Path) == 0 {
			c.Path = nil
		}
		if len(c.Value) == 0 {
			c.Value = nil
		}
		out.Cells = append(out.Cells, c)
	}
	out.Complex = append(out.Complex, u.Complex...)
	return out
}

// TestRefusesBadInput: input Cassandra would not write is an error that
// names the action, never a panic or a damaged file.
func TestRefusesBadInput(t *testing.T) {
	h := metadata.SerializationHeader{KeyType: mt + "Int32Type", ClusteringTypes: []string{mt + "Int32Type"},
		RegularColumns: []metadata.ColumnType{{Name: "v", Type: mt + "Int32Type"}}}
	row := func(c uint32) *sstable.Unfiltered {
		return &sstable.Unfiltered{Clustering: [][]byte{binary.BigEndian.AppendUint32(nil, c)},
			Liveness: sstable.LivenessInfo{Timestamp: 1}, Deletion: sstable.LiveDeletion}
	}
	key := func(k uint32) []byte { return binary.BigEndian.AppendUint32(nil, k) }
	keys := [][]byte{key(1), key(2), key(3)}
	slices.SortFunc(keys, func(a, b []byte) int { return token.CompareDecorated(token.Of(a), a, token.Of(b), b) })
	for _, tc := range []struct {
		name string
		run  func(w *writer.Writer) error
	}{
		{"partitions out of order", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[1], sstable.LiveDeletion))
			return w.StartPartition(keys[0], sstable.LiveDeletion)
		}},
		{"same partition twice", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[1], sstable.LiveDeletion))
			return w.StartPartition(keys[1], sstable.LiveDeletion)
		}},
		{"rows out of order", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[0], sstable.LiveDeletion))
			must(t, w.Add(row(2)))
			return w.Add(row(1))
		}},
		{"row without clustering", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[0], sstable.LiveDeletion))
			return w.Add(&sstable.Unfiltered{Liveness: sstable.LivenessInfo{Timestamp: 1}, Deletion: sstable.LiveDeletion})
		}},
		{"value of the wrong width", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[0], sstable.LiveDeletion))
			u := row(1)
			u.Cells = []sstable.Cell{{Column: 0, Timestamp: 1, Value: []byte{1}}}
			return w.Add(u)
		}},
		{"cell of no column", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[0], sstable.LiveDeletion))
			u := row(1)
			u.Cells = []sstable.Cell{{Column: 5, Timestamp: 1, Value: []byte{0, 0, 0, 1}}}
			return w.Add(u)
		}},
		{"range tombstone left open", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[0], sstable.LiveDeletion))
			must(t, w.Add(&sstable.Unfiltered{Marker: true, Kind: sstable.InclStartBound, Clustering: row(1).Clustering,
				MarkerDel: sstable.DeletionTime{MarkedForDeleteAt: 1, LocalDeletionTime: 1}}))
			return w.Finish()
		}},
		{"static row without static columns", func(w *writer.Writer) error {
			must(t, w.StartPartition(keys[0], sstable.LiveDeletion))
			return w.Add(&sstable.Unfiltered{Static: true, Liveness: sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}, Deletion: sstable.LiveDeletion})
		}},
		{"negative deletion", func(w *writer.Writer) error {
			return w.StartPartition(keys[0], sstable.DeletionTime{MarkedForDeleteAt: -5, LocalDeletionTime: 1})
		}},
		{"no partition", func(w *writer.Writer) error { return w.Finish() }},
		{"row before a partition", func(w *writer.Writer) error { return w.Add(row(1)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := writer.New(writer.NewMemory(), writer.Options{Header: h})
			must(t, err)
			err = tc.run(w)
			check(t, errors.Is(err, writer.ErrInput), "error %v does not match ErrInput", err)
			check(t, errors.Is(w.Finish(), err) || w.Finish() != nil, "Finish after an error succeeded")
		})
	}
}

// TestAddAllocs: encoding a row allocates nothing once the writer's
// buffers have grown.
func TestAddAllocs(t *testing.T) {
	h := metadata.SerializationHeader{KeyType: mt + "Int32Type", ClusteringTypes: []string{mt + "Int32Type"},
		RegularColumns: []metadata.ColumnType{{Name: "v", Type: mt + "UTF8Type"}, {Name: "n", Type: mt + "LongType"}}}
	w, err := writer.New(writer.NewMemory(), writer.Options{Header: h})
	must(t, err)
	must(t, w.StartPartition([]byte{0, 0, 0, 1}, sstable.LiveDeletion))
	c := uint32(0)
	u := sstable.Unfiltered{Clustering: [][]byte{make([]byte, 4)}, Liveness: sstable.LivenessInfo{Timestamp: 10}, Deletion: sstable.LiveDeletion,
		Cells: []sstable.Cell{{Column: 0, Timestamp: 11, Value: make([]byte, 8)}, {Column: 1, Timestamp: 10, Value: []byte("hello")}}}
	add := func() {
		c++
		binary.BigEndian.PutUint32(u.Clustering[0], c)
		if err := w.Add(&u); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		add()
	}
	if n := testing.AllocsPerRun(1000, add); n != 0 {
		t.Errorf("Add allocates %v times per row", n)
	}
}

// compareSlice reads a random inclusive slice of a partition's rows and
// requires the rows written in it, in order.
func compareSlice(t *testing.T, r *rand.Rand, got *sstable.Reader, s *sstable.Schema, p *partition) {
	t.Helper()
	var rows []sstable.Unfiltered
	for _, u := range p.us {
		if !u.Marker && !u.Static {
			rows = append(rows, u)
		}
	}
	if len(rows) == 0 || len(s.Clustering) == 0 {
		return
	}
	i := r.IntN(len(rows))
	j := i + r.IntN(len(rows)-i)
	sl := sstable.Slice{Start: sstable.Bound{Values: rows[i].Clustering, Inclusive: true}, End: sstable.Bound{Values: rows[j].Clustering, Inclusive: true}}
	sc, err := got.GetSlice(p.key, sl)
	must(t, err)
	defer sc.Release()
	check(t, sc.NextPartition(), "slice of %x: no partition: %v", p.key, sc.Err())
	k := i
	for sc.NextUnfiltered() {
		u := sc.Unfiltered()
		if u.Marker || u.Static {
			continue
		}
		check(t, k <= j, "slice of %x: rows past the slice", p.key)
		equal(t, semantic(rows[k]), semantic(*u), fmt.Sprintf("slice of %x, row %d", p.key, k))
		k++
	}
	must(t, sc.Err())
	check(t, k == j+1, "slice of %x: rows %d..%d, read up to %d", p.key, i, j, k)
}
