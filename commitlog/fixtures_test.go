package commitlog_test

import (
	"bytes"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// TestFixtures reads every segment Cassandra wrote for the fixtures
// (versions 7 and 8, uncompressed and each compressor): every header,
// marker and entry CRC holds, the workload's 303 mutations are there
// (302 carrying its values, and the partition deletion), positions
// increase, and they fall inside the commitLogIntervals Cassandra wrote
// into the SSTable it flushed them to.
func TestFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			segs, err := commitlog.ListDir(f.dir())
			if err != nil {
				t.Fatal(err)
			}
			if len(segs) != len(f.Files) {
				t.Fatalf("ListDir found %d segments, the manifest %d", len(segs), len(f.Files))
			}
			wantVersion, wantMessaging := 8, 13
			if f.Mode == "nb" {
				wantVersion, wantMessaging = 7, 12
			}
			id := f.tableID(t)
			lo, hi := f.interval(t)
			entries, markers := 0, 0
			var last commitlog.Position
			for i, s := range segs {
				modes := []bool{false}
				if i == len(segs)-1 {
					modes = append(modes, true)
				}
				for _, live := range modes {
					r, err := commitlog.Open(s.Path, commitlog.Options{Live: live})
					if err != nil {
						t.Fatal(err)
					}
					h := r.Header()
					if h.Version != wantVersion || r.MessagingVersion() != wantMessaging || h.ID != s.ID || h.Compression != f.Compression {
						t.Errorf("%s: header %+v, messaging %d; want version %d, messaging %d, compression %q", s.Path, h, r.MessagingVersion(), wantVersion, wantMessaging, f.Compression)
					}
					n := 0
					for r.Next() {
						e := r.Entry()
						if e.Position.SegmentID != s.ID || e.Position.Compare(last) <= 0 || e.Start >= e.Position.Offset {
							t.Fatalf("%s: entry at %d..%+v after %+v", s.Path, e.Start, e.Position, last)
						}
						last = e.Position
						n++
						if live || !ofTable(e.Mutation, id) {
							continue
						}
						entries++
						if bytes.Contains(e.Mutation, []byte("clfix-")) {
							markers++
						}
						if e.Position.Compare(lo) < 0 || e.Position.Compare(hi) > 0 {
							t.Errorf("%s: the table's entry ending at %+v is outside the flushed SSTable's interval [%+v, %+v]", s.Path, e.Position, lo, hi)
						}
					}
					if r.Err() != nil || r.TornTail() != nil {
						t.Fatalf("%s (live %v): err %v, torn tail %v", s.Path, live, r.Err(), r.TornTail())
					}
					if cp := r.Checkpoint(); cp.After != last.Offset && n > 0 {
						t.Errorf("%s: checkpoint %+v, last entry ended at %d", s.Path, cp, last.Offset)
					}
					r.Close()
					last = commitlog.Position{SegmentID: s.ID}
				}
			}
			if entries != f.Entries || markers != f.Markers {
				t.Errorf("%d entries of the table, %d with the workload's values; want %d and %d", entries, markers, f.Entries, f.Markers)
			}
		})
	}
}

// ofTable reports whether a mutation is one update of table id: a vint
// count of 1, then the update's 16-byte TableId (PartitionUpdate's
// serializer). The schema mutation that created the table holds the id
// too, but not there.
func ofTable(mutation, id []byte) bool {
	return len(mutation) > 17 && mutation[0] == 1 && bytes.Equal(mutation[1:17], id)
}
