package big

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

const fuzzMax = 1 << 20

func seedCorpus(f *testing.F, component string) {
	for _, s := range corpusTables(f) {
		f.Add(s.read(f, component))
	}
}

func FuzzParseSummary(f *testing.F) {
	seedCorpus(f, "Summary.db")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > fuzzMax {
			return
		}
		s, err := ParseSummary(b, "fuzz")
		wantCorruption(t, err, "fuzz", "Summary.db")
		if err != nil {
			return
		}
		for i := 0; i < s.Len(); i++ {
			if k := s.Key(i); len(k) > len(b) {
				t.Fatal("key longer than the input")
			}
			_ = s.IndexPosition(i)
		}
		if i := s.Floor(s.LastKey()); i < -1 || i >= s.Len() {
			t.Fatalf("Floor = %d of %d", i, s.Len())
		}
	})
}

func FuzzIndexEntry(f *testing.F) {
	seedCorpus(f, "Index.db")
	// One input exercises every mode and both deletion-time formats, with
	// clustering types of each framing (fixed, variable) and none.
	typeSets := [][]*marshal.Type{mustTypes(f, "Int32Type"),
		mustTypes(f, "Int32Type", "ReversedType(org.apache.cassandra.db.marshal.UTF8Type)", "TimestampType"), nil}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > fuzzMax {
			return
		}
		for _, types := range typeSets {
			for _, mode := range []PromotedMode{PromotedFull, PromotedHeader, PromotedSkip} {
				for _, uint := range []bool{false, true} {
					opts := IndexOptions{UIntDeletionTime: uint, ClusteringTypes: types, Promoted: mode}
					_, err := scanIndex(b, "fuzz", opts)
					wantCorruption(t, err, "fuzz", "Index.db")
					d := base.NewDecbuf(b, "fuzz", "Index.db", 0)
					var e IndexEntry
					wantCorruption(t, ReadIndexEntry(&d, &opts, &e), "fuzz", "Index.db")
				}
			}
		}
	})
}

func FuzzParseFilter(f *testing.F) {
	seedCorpus(f, "Filter.db")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > fuzzMax {
			return
		}
		for _, parse := range []func([]byte, string) (*Filter, error){ParseFilter, ParseOldFilter} {
			flt, err := parse(b, "fuzz")
			wantCorruption(t, err, "fuzz", "Filter.db")
			if err == nil {
				flt.MayContain(b)
				flt.MayContain(nil)
			}
		}
	})
}
