package commitlog_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// poll runs one Poll, collecting copies of the entries it hands out.
func poll(t *testing.T, tl *commitlog.Tailer) ([]commitlog.Entry, commitlog.Polled, error) {
	t.Helper()
	var got []commitlog.Entry
	p, err := tl.Poll(func(e commitlog.Entry, mv int) {
		if mv != 12 && mv != 13 {
			t.Fatalf("messaging version %d", mv)
		}
		e.Mutation = bytes.Clone(e.Mutation)
		got = append(got, e)
	})
	if p.Entries != len(got) {
		t.Fatalf("Poll says %d entries, handed out %d", p.Entries, len(got))
	}
	return got, p, err
}

// TestTailerFollowsGrowth: a fixture's segment appears in a directory in
// steps, as Cassandra writes it (cut at several places, then whole), then
// the spare segment after it, then the first is deleted: the Tailer hands
// out every entry once, in order, and reports the deleted segment gone.
func TestTailerFollowsGrowth(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			path, b := f.dataSegment(t)
			full := readBytes(t, b, path, commitlog.Options{})
			dir := t.TempDir()
			dst := filepath.Join(dir, filepath.Base(path))
			tl := commitlog.NewTailer(dir, commitlog.Options{})
			var got []commitlog.Entry
			for _, k := range []int{0, 10, len(b) / 3, len(b) / 3, 2 * len(b) / 3, len(b) - 3, len(b)} {
				if err := os.WriteFile(dst, b[:k], 0o644); err != nil {
					t.Fatal(err)
				}
				es, p, err := poll(t, tl)
				if err != nil {
					t.Fatalf("cut at %d: %v", k, err)
				}
				if p.Torn > 1 {
					t.Errorf("cut at %d: %d segments torn, one is there", k, p.Torn)
				}
				got = append(got, es...)
			}
			if len(got) != len(full.entries) {
				t.Fatalf("handed out %d entries, the segment has %d", len(got), len(full.entries))
			}
			for i, e := range got {
				if e.Position != full.entries[i].Position || !bytes.Equal(e.Mutation, full.entries[i].Mutation) {
					t.Fatalf("entry %d: %+v, want %+v", i, e.Position, full.entries[i].Position)
				}
			}
			// The spare segment Cassandra creates ahead, then the data
			// segment deleted after a flush.
			for _, name := range f.Files {
				if src := filepath.Join(f.dir(), name); name != filepath.Base(path) {
					sb, err := os.ReadFile(src)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, name), sb, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if es, _, err := poll(t, tl); err != nil || len(es) != 0 {
				t.Fatalf("with the spare segment: %d entries, %v", len(es), err)
			}
			if err := os.Remove(dst); err != nil {
				t.Fatal(err)
			}
			es, p, err := poll(t, tl)
			if err != nil || len(es) != 0 || len(p.Gone) != 1 || p.Gone[0] != full.entries[0].Position.SegmentID {
				t.Fatalf("after deleting %s: %d entries, gone %v, %v", dst, len(es), p.Gone, err)
			}
		})
	}
}

// TestTailerBrokenSegment: damage before a segment's tail is reported
// once, naming the segment, with the entries before it handed out; the
// segment stays broken (Broken) until it is deleted, and the other
// segments are read all along.
func TestTailerBrokenSegment(t *testing.T) {
	f := fixtures(t)[slices.IndexFunc(fixtures(t), func(f fixture) bool { return f.Compression == "" })]
	path, b := f.dataSegment(t)
	full := readBytes(t, b, path, commitlog.Options{})
	mid := full.entries[len(full.entries)/2]
	bad := slices.Clone(b)
	flip(bad, mid.Start+20) // inside the mutation: its data CRC fails, later markers are valid
	dir := t.TempDir()
	dst := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(dst, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	tl := commitlog.NewTailer(dir, commitlog.Options{})
	es, _, err := poll(t, tl)
	var ce *commitlog.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, commitlog.ErrCorruption) || ce.File != dst {
		t.Fatalf("damaged segment: %v, want a corruption naming %s", err, dst)
	}
	if len(es) == 0 || len(es) >= len(full.entries) || es[len(es)-1].Position.Offset >= mid.Position.Offset {
		t.Fatalf("handed out %d of %d entries, the last ending at %+v; the damage is in the one ending at %+v", len(es), len(full.entries), es[len(es)-1].Position, mid.Position)
	}
	if len(tl.Broken()) != 1 {
		t.Fatalf("Broken: %v", tl.Broken())
	}
	if es, _, err := poll(t, tl); err != nil || len(es) != 0 || len(tl.Broken()) != 1 {
		t.Fatalf("second poll: %d entries, %v, broken %v", len(es), err, tl.Broken())
	}
	if err := os.Remove(dst); err != nil {
		t.Fatal(err)
	}
	if _, p, err := poll(t, tl); err != nil || len(p.Gone) != 1 || len(tl.Broken()) != 0 {
		t.Fatalf("after deleting it: gone %v, %v, broken %v", p.Gone, err, tl.Broken())
	}
}

// TestTailerOnLiveNode: a Tailer over the shared node's commit log (read
// only) sees each value this test writes through CQL exactly once, over
// polls that run while other tests write too.
func TestTailerOnLiveNode(t *testing.T) {
	n := cassandratest.Shared(t)
	nonce := fmt.Sprintf("cl-tail-%d", time.Now().UnixNano())
	s := n.FreshKeyspace(t, "commitlog_tail", "CREATE TABLE commitlog_tail.kv (k int PRIMARY KEY, v text)")
	tl := commitlog.NewTailer(filepath.Join(n.Dir, "commitlog"), commitlog.Options{})
	seen := map[string]int{}
	pollUntil := func(want int) {
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := tl.Poll(func(e commitlog.Entry, _ int) {
				for b := e.Mutation; ; {
					i := bytes.Index(b, []byte(nonce))
					if i < 0 || i+len(nonce)+4 > len(b) {
						break
					}
					seen[string(b[i:i+len(nonce)+4])]++
					b = b[i+len(nonce)+4:]
				}
			}); err != nil {
				t.Fatal(err)
			}
			if len(seen) >= want || time.Now().After(deadline) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for round := range 2 {
		for i := round * 30; i < (round+1)*30; i++ {
			if err := s.Query("INSERT INTO commitlog_tail.kv (k, v) VALUES (?, ?)", i, fmt.Sprintf("%s-%03d", nonce, i)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
		pollUntil((round + 1) * 30)
	}
	if len(seen) != 60 {
		t.Fatalf("saw %d of the 60 values", len(seen))
	}
	for v, c := range seen {
		if c != 1 {
			t.Errorf("%s handed out %d times", v, c)
		}
	}
}
