package metadata_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// eachCorpusTable runs fn for every table of every corpus mode
// (corpus.Cases.Tables). The returned cases tell whether -run left some
// out.
func eachCorpusTable(t *testing.T, fn func(t *testing.T, mode string, tbl *corpus.CorpusTable)) *corpus.Cases {
	t.Helper()
	cases := corpus.NewCases(t)
	cases.Tables(corpus.Root(), fn)
	return cases
}

func readStatistics(t testing.TB, tbl *corpus.CorpusTable, st corpus.SSTableFiles) (*metadata.Statistics, []byte, metadata.Version) {
	t.Helper()
	d, err := metadata.ParseDescriptor(st.Prefix + "-Statistics.db")
	if err != nil {
		t.Fatal(err)
	}
	v, err := metadata.ParseVersion(d.Version, d.Format)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tbl.Dir, d.FileName())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := metadata.ParseStatistics(b, path, v)
	if err != nil {
		t.Fatal(err)
	}
	return s, b, v
}

// TestStatisticsMatchSchema: for every SSTable Cassandra wrote, the
// serialization header names schema columns only, and as many clustering
// types as clustering columns. NB: a flushed memtable's header lists only
// the columns that memtable wrote, so later generations name subsets; the
// first all_types generation, which wrote every column, names them all.
func TestStatisticsMatchSchema(t *testing.T) {
	n := 0
	cases := eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		var static, regular []string
		clustering := 0
		// Columns dropped since stay in older SSTables' headers.
		for _, m := range regexp.MustCompile(`DROP (\w+) USING TIMESTAMP`).FindAllStringSubmatch(tbl.Schema, -1) {
			regular = append(regular, m[1])
		}
		for _, col := range tbl.Expected.Columns {
			switch col.Kind {
			case "static":
				static = append(static, col.Name)
			case "regular":
				regular = append(regular, col.Name)
			case "clustering":
				clustering++
			}
		}
		for _, st := range tbl.SSTables {
			s, _, _ := readStatistics(t, tbl, st)
			n++
			if s.Partitioner != "org.apache.cassandra.dht.Murmur3Partitioner" {
				t.Errorf("%s %s: partitioner %q", mode, st.Prefix, s.Partitioner)
			}
			if got := names(s.Header.StaticColumns); !subset(got, static) {
				t.Errorf("%s %s/%s: static columns %v, schema %v", mode, tbl.Name, st.Prefix, got, static)
			}
			got := names(s.Header.RegularColumns)
			if !subset(got, regular) || (tbl.Name == "all_types" && !sameSet(got, regular)) {
				t.Errorf("%s %s/%s: regular columns %v, schema %v", mode, tbl.Name, st.Prefix, got, regular)
			}
			if len(s.Header.ClusteringTypes) != clustering {
				t.Errorf("%s %s/%s: %d clustering types, schema has %d", mode, tbl.Name, st.Prefix, len(s.Header.ClusteringTypes), clustering)
			}
			if tbl.Name == "timestamps" && st.Prefix[3:5] == "1-" && s.Header.MinTimestamp != 1000 {
				t.Errorf("%s timestamps gen 1: min timestamp %d, want 1000 (USING TIMESTAMP 1000)", mode, s.Header.MinTimestamp)
			}
		}
	})
	if cases.All() && n < 3*29 {
		t.Fatalf("checked %d SSTables", n)
	}
}

// TestStatisticsCorruption: every truncation and a flipped byte in each
// component give a corruption error, never a panic.
func TestStatisticsCorruption(t *testing.T) {
	c := corpus.LoadEach(t)["oa"]
	tbl := c.Tables["all_types"]
	_, b, v := readStatistics(t, tbl, tbl.SSTables[0])
	for n := 0; n < len(b); n += 7 {
		if _, err := metadata.ParseStatistics(b[:n], "stats", v); !errors.Is(err, sstable.ErrCorruption) {
			t.Fatalf("truncated to %d bytes: got %v, want a corruption error", n, err)
		}
	}
	for _, off := range []int{2, 30, 50, len(b) / 2, len(b) - 10} {
		bad := slices.Clone(b)
		bad[off] ^= 0x5a
		if _, err := metadata.ParseStatistics(bad, "stats", v); !errors.Is(err, sstable.ErrCorruption) {
			t.Errorf("byte %d flipped: got %v, want a corruption error", off, err)
		}
	}
}

func FuzzParseStatistics(f *testing.F) {
	corpora := corpus.LoadEach(f)
	for _, mode := range corpus.Modes {
		for _, tbl := range corpora[mode].Sorted() {
			_, b, _ := readStatistics(f, tbl, tbl.SSTables[0])
			f.Add(b)
		}
	}
	v, _ := metadata.ParseVersion("oa", "big")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		if _, err := metadata.ParseStatistics(b, "fuzz", v); err != nil && !errors.Is(err, sstable.ErrCorruption) {
			t.Fatalf("non-corruption error: %v", err)
		}
	})
}

func names(cs []metadata.ColumnType) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
