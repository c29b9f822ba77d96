package writer_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/compress"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/sstable/writer"
)

// rewrite reads every partition of src and writes it with a Writer into
// files, under src's serialization header.
func rewrite(t testing.TB, src *sstable.Reader, files writer.Files, opts writer.Options) *writer.Writer {
	t.Helper()
	opts.Header = src.Stats.Header
	w, err := writer.New(files, opts)
	must(t, err)
	s := src.Scan()
	defer s.Release()
	for s.NextPartition() {
		ph := s.Partition()
		must(t, w.StartPartition(ph.Key, ph.Deletion))
		for s.NextUnfiltered() {
			must(t, w.Add(s.Unfiltered()))
		}
	}
	must(t, s.Err())
	must(t, w.Finish())
	return w
}

// TestCorpusRoundTrip rewrites every corpus SSTable (every mode: the
// rows of nb and da are written as oa) and reads the result back from
// memory: every partition and unfiltered equals the original's, at the
// same Data.db positions; for oa and da sources, whose Data.db has the
// same row format, Data.db is the original's byte for byte (and for oa,
// Index.db and Summary.db too); the stats
// the writer computes equal Cassandra's; every key is found by Get, and
// slices read the same.
func TestCorpusRoundTrip(t *testing.T) {
	cases := corpus.NewCases(t)
	n := cases.Tables(corpus.Root(), func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		for _, st := range tbl.SSTables {
			t.Run(st.Prefix, func(t *testing.T) {
				roundTrip(t, filepath.Join(tbl.Dir, st.Prefix+"-Data.db"))
			})
		}
	})
	check(t, n > 0, "no corpus")
}

func roundTrip(t *testing.T, path string) {
	src, err := sstable.Open(path, sstable.Options{})
	must(t, err)
	defer src.Close()
	mem := writer.NewMemory()
	w := rewrite(t, src, mem, writer.Options{})
	got, err := sstable.Open(w.DataFile(), sstable.Options{FS: mem})
	must(t, err)
	defer got.Close()
	must(t, got.VerifyDigest())
	must(t, got.VerifyIndexes())

	same := src.Version.UIntDeletionTime // the row format of oa
	keys := compareScans(t, src.Scan(), got.Scan(), same)
	if src.Version.UIntDeletionTime {
		data, _ := mem.File(w.DataFile())
		want := plainData(t, path)
		i := 0
		for i < len(want) && i < len(data) && want[i] == data[i] {
			i++
		}
		check(t, bytes.Equal(want, data), "Data.db differs from the original's at %d: % x vs % x", i, want[max(0, i-16):min(len(want), i+24)], data[max(0, i-16):min(len(data), i+24)])
	}
	for _, c := range []string{"Index.db", "Summary.db"} {
		if !src.Version.UIntDeletionTime || src.Version.BTI {
			break
		}
		want, err := os.ReadFile(strings.TrimSuffix(path, "Data.db") + c)
		must(t, err)
		b, _ := mem.File(strings.TrimSuffix(w.DataFile(), "Data.db") + c)
		i := 0
		for i < len(want) && i < len(b) && want[i] == b[i] {
			i++
		}
		check(t, bytes.Equal(want, b), "%s differs from the original's at %d of %d: % x vs % x", c, i, len(want), want[max(0, i-16):min(len(want), i+24)], b[max(0, i-16):min(len(b), i+24)])
	}
	compareStats(t, &src.Stats.Stats, &got.Stats.Stats, same)
	equal(t, src.Stats.Compaction.Cardinality, got.Stats.Compaction.Cardinality, "cardinality estimator")
	for _, k := range keys {
		a, err := src.Get(k)
		must(t, err)
		b, err := got.Get(k)
		must(t, err)
		check(t, len(compareScans(t, a, b, same)) == 1, "Get %x: not one partition", k)
	}
	// Slices: from each partition's first row to its last (inclusive),
	// and the rows after the first one, exclusive.
	for _, k := range keys {
		rows := clusterings(t, src, k)
		if len(rows) == 0 {
			continue
		}
		first, last := rows[0], rows[len(rows)-1]
		for _, sl := range []sstable.Slice{
			{Start: sstable.Bound{Values: first, Inclusive: true}, End: sstable.Bound{Values: last, Inclusive: true}},
			{Start: sstable.Bound{Values: first}},
			{End: sstable.Bound{Values: last}},
			{Start: sstable.Bound{Values: first[:1], Inclusive: true}, End: sstable.Bound{Values: first[:1], Inclusive: true}},
		} {
			a, err := src.GetSlice(k, sl)
			must(t, err)
			b, err := got.GetSlice(k, sl)
			must(t, err)
			compareScans(t, a, b, same)
		}
	}
}

// clusterings lists the clusterings of a partition's rows.
func clusterings(t *testing.T, r *sstable.Reader, key []byte) [][][]byte {
	s, err := r.Get(key)
	must(t, err)
	defer s.Release()
	var out [][][]byte
	for s.NextPartition() {
		for s.NextUnfiltered() {
			u := s.Unfiltered()
			if u.Marker || u.Static || len(u.Clustering) == 0 {
				continue
			}
			var c [][]byte
			for _, v := range u.Clustering {
				c = append(c, bytes.Clone(v))
			}
			out = append(out, c)
		}
	}
	must(t, s.Err())
	return out
}

// compareScans reads two scanners to the end, requiring equal partitions
// and unfiltereds; it returns the keys.
func compareScans(t *testing.T, a, b *sstable.Scanner, samePositions bool) [][]byte {
	t.Helper()
	defer a.Release()
	defer b.Release()
	var keys [][]byte
	for a.NextPartition() {
		check(t, b.NextPartition(), "written sstable ends early: %v", b.Err())
		pa, pb := *a.Partition(), *b.Partition()
		if !samePositions {
			pa.Position, pa.End, pb.Position, pb.End = 0, 0, 0, 0
		}
		equal(t, pa, pb)
		keys = append(keys, bytes.Clone(pa.Key))
		for a.NextUnfiltered() {
			check(t, b.NextUnfiltered(), "partition %x ends early: %v", pa.Key, b.Err())
			ua, ub := normalize(*a.Unfiltered()), normalize(*b.Unfiltered())
			if !samePositions {
				ua.Position, ua.End, ub.Position, ub.End = 0, 0, 0, 0
			}
			equal(t, ua, ub, fmt.Sprintf("partition %x", pa.Key))
		}
		must(t, a.Err())
		check(t, !b.NextUnfiltered(), "partition %x has more", pa.Key)
		must(t, b.Err())
	}
	must(t, a.Err())
	check(t, !b.NextPartition(), "written sstable has more partitions")
	must(t, b.Err())
	return keys
}

// plainData is the original's Data.db, decompressed.
func plainData(t *testing.T, path string) []byte {
	info := strings.TrimSuffix(path, "Data.db") + "CompressionInfo.db"
	b, err := os.ReadFile(info)
	if os.IsNotExist(err) {
		b, err = os.ReadFile(path)
		must(t, err)
		return b
	}
	must(t, err)
	ci, err := compress.ParseInfo(b, info, true)
	must(t, err)
	f, c, err := base.OpenFile(path)
	must(t, err)
	defer c.Close()
	r := compress.NewReader(f, ci, compress.Options{})
	out := make([]byte, r.DataLength())
	_, err = r.ReadAt(out, 0)
	if err == io.EOF {
		err = nil
	}
	must(t, err)
	return out
}

// compareStats requires the stats the writer computes to equal
// Cassandra's.
func compareStats(t *testing.T, want, got *metadata.StatsMetadata, same bool) {
	t.Helper()
	w, g := *want, *got
	if !same {
		// Before oa: other sizes, and no covered slice to compare.
		w.PartitionSizes, g.PartitionSizes = nil, nil
		w.HasCoveredClustering, w.ClusteringTypes, w.CoveredClustering = g.HasCoveredClustering, g.ClusteringTypes, g.CoveredClustering
		w.FirstKey, w.LastKey = g.FirstKey, g.LastKey
		w.TombstoneMaxBins, w.HasPartitionLevelDeletions = g.TombstoneMaxBins, g.HasPartitionLevelDeletions
	}
	for _, s := range []*metadata.StatsMetadata{&w, &g} {
		// Not the writer's to know: where the data came from, and the
		// compression.
		s.CommitLogUpperBound, s.CommitLogLowerBound, s.CommitLogIntervals = metadata.CommitLogPosition{}, metadata.CommitLogPosition{}, nil
		s.OriginatingHostID, s.CompressionRatio = nil, 0
		// Legacy (before oa) and format-specific fields.
		s.HasLegacyMinMax, s.MinClusteringValues, s.MaxClusteringValues = false, nil, nil
		s.TokenSpaceCoverage = 0
	}
	equal(t, w, g)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func check(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

func equal(t testing.TB, want, got any, msg ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		w, g := fmt.Sprintf("%#v", want), fmt.Sprintf("%#v", got)
		i := 0
		for i < len(w) && i < len(g) && w[i] == g[i] {
			i++
		}
		t.Fatalf("%s\nwant %+v\n got %+v\nfirst difference: %q vs %q", fmt.Sprint(msg...), want, got, w[max(0, i-80):min(len(w), i+80)], g[max(0, i-80):min(len(g), i+80)])
	}
}

// normalize makes empty slices nil: the reader leaves either, by reuse.
func normalize(u sstable.Unfiltered) sstable.Unfiltered {
	if len(u.Clustering) == 0 {
		u.Clustering = nil
	}
	if len(u.Complex) == 0 {
		u.Complex = nil
	}
	if len(u.Cells) == 0 {
		u.Cells = nil
	}
	return u
}
