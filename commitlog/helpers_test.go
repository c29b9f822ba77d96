package commitlog_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// fixture is one entry of testdata/manifest.json, written by
// cmd/commitloggen (make commitlog-fixtures).
type fixture struct {
	Name        string   `json:"name"`
	Mode        string   `json:"mode"`
	Compression string   `json:"compression"`
	Files       []string `json:"files"`
	TableID     string   `json:"table_id"`
	Entries     int      `json:"entries"`
	Markers     int      `json:"markers"`
	Intervals   string   `json:"commit_log_intervals"`
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []fixture
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	if len(fs) < 6 {
		t.Fatalf("%d fixtures in the manifest", len(fs))
	}
	return fs
}

func (f fixture) dir() string { return filepath.Join("testdata", f.Name) }

func (f fixture) tableID(t testing.TB) []byte {
	id, err := hex.DecodeString(f.TableID)
	if err != nil || len(id) != 16 {
		t.Fatalf("table id %q: %v", f.TableID, err)
	}
	return id
}

// interval is sstablemetadata's "Replay positions covered" for the
// fixture's flushed table: one closed interval of positions.
func (f fixture) interval(t testing.TB) (lo, hi commitlog.Position) {
	t.Helper()
	m := regexp.MustCompile(`^\{CommitLogPosition\(segmentId=(\d+), position=(\d+)\)=CommitLogPosition\(segmentId=(\d+), position=(\d+)\)\}$`).FindStringSubmatch(f.Intervals)
	if m == nil {
		t.Fatalf("intervals %q: want one interval", f.Intervals)
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	return commitlog.Position{SegmentID: n(m[1]), Offset: n(m[2])}, commitlog.Position{SegmentID: n(m[3]), Offset: n(m[4])}
}

// dataSegment is the fixture's segment holding the workload (the other
// is the empty one Cassandra creates ahead).
func (f fixture) dataSegment(t testing.TB) (string, []byte) {
	t.Helper()
	segs, err := commitlog.ListDir(f.dir())
	if err != nil || len(segs) == 0 {
		t.Fatalf("list %s: %v %v", f.dir(), segs, err)
	}
	id := f.tableID(t)
	for _, s := range segs {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		got := readBytes(t, b, s.Path, commitlog.Options{})
		for _, e := range got.entries {
			if ofTable(e.Mutation, id) {
				return s.Path, b
			}
		}
	}
	t.Fatalf("%s: no segment holds the table's entries", f.Name)
	return "", nil
}

// result is everything one reading of a segment gave.
type result struct {
	entries []commitlog.Entry      // with copied mutations
	marks   []commitlog.Checkpoint // the checkpoint as each entry was read: its section's marker
	err     error
	torn    *commitlog.CorruptionError
	cp      commitlog.Checkpoint
	header  commitlog.Header
}

// readBytes reads the segment b (named name) to its end; an error from
// NewReader is result.err.
func readBytes(t testing.TB, b []byte, name string, opt commitlog.Options) result {
	t.Helper()
	r, err := commitlog.NewReader(bytes.NewReader(b), int64(len(b)), name, opt)
	if err != nil {
		return result{err: err}
	}
	defer r.Close()
	var res result
	for r.Next() {
		e := r.Entry()
		e.Mutation = bytes.Clone(e.Mutation)
		res.entries = append(res.entries, e)
		res.marks = append(res.marks, r.Checkpoint())
	}
	res.err, res.torn, res.cp, res.header = r.Err(), r.TornTail(), r.Checkpoint(), r.Header()
	return res
}
