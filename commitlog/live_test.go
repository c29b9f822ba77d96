package commitlog_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestLiveSegments reads the shared node's commit log while it runs
// (read-only): the values this test writes through CQL appear, in entries
// whose CRCs hold, at increasing positions, without a flush; and a
// reading resumed from the live segment's checkpoint finds the values
// written after it. Other tests write to the node at the same time, so
// only this test's values are judged.
func TestLiveSegments(t *testing.T) {
	n := cassandratest.Shared(t)
	nonce := fmt.Sprintf("cl-live-%d", time.Now().UnixNano())
	s := n.FreshKeyspace(t, "commitlog_live", "CREATE TABLE commitlog_live.kv (k int PRIMARY KEY, v text)")
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if err := s.Query("INSERT INTO commitlog_live.kv (k, v) VALUES (?, ?)", i, fmt.Sprintf("%s-%03d", nonce, i)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := filepath.Join(n.Dir, "commitlog")
	wantVersion := 8
	if n.Mode == cassandratest.ModeNB {
		wantVersion = 7
	}
	write(0, 50)
	found, cps := waitFor(t, dir, nonce, 50, nil, wantVersion)
	if len(found) != 50 {
		t.Fatalf("found %d of the 50 values", len(found))
	}
	write(50, 60)
	// Each segment read again from its checkpoint, and any newer one
	// from the start: only the new values.
	found, _ = waitFor(t, dir, nonce, 10, cps, wantVersion)
	for v := range found {
		if !bytes.HasPrefix([]byte(v), []byte(nonce+"-05")) {
			t.Errorf("resumed reading found %s again", v)
		}
	}
}

// waitFor reads the commit log until it holds want of this test's values
// (30 s at most: an mmap segment shows a write within ~100 ms), checking
// every segment's CRCs on the way; a segment in from is read from its
// checkpoint there, one older than all of them not at all. It returns the
// values found and each segment's checkpoint.
func waitFor(t *testing.T, dir, nonce string, want int, from map[int64]commitlog.Checkpoint, version int) (map[string]commitlog.Position, map[int64]commitlog.Checkpoint) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		found := map[string]commitlog.Position{}
		segs, err := commitlog.ListDir(dir)
		if err != nil || len(segs) == 0 {
			t.Fatalf("list %s: %v, %d segments", dir, err, len(segs))
		}
		cps := map[int64]commitlog.Checkpoint{}
		var last commitlog.Position
		for i, sg := range segs {
			cp, ok := from[sg.ID]
			if !ok && len(from) > 0 && sg.ID < slices.Max(slices.Collect(maps.Keys(from))) {
				continue
			}
			// The segment written is usually the second newest: Cassandra
			// creates the next one ahead.
			opt := commitlog.Options{Live: i >= len(segs)-2, From: cp}
			r, err := commitlog.Open(sg.Path, opt)
			if errors.Is(err, fs.ErrNotExist) {
				continue // recycled after a flush since the listing
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Header().Version != version {
				t.Errorf("%s: version %d, want %d", sg.Path, r.Header().Version, version)
			}
			for r.Next() {
				e := r.Entry()
				if e.Position.Compare(last) <= 0 {
					t.Fatalf("%s: position %+v after %+v", sg.Path, e.Position, last)
				}
				last = e.Position
				if i := bytes.Index(e.Mutation, []byte(nonce)); i >= 0 && i+len(nonce)+4 <= len(e.Mutation) {
					found[string(e.Mutation[i:i+len(nonce)+4])] = e.Position
				}
			}
			if r.Err() != nil {
				t.Fatalf("%s: %v", sg.Path, r.Err())
			}
			cps[sg.ID] = r.Checkpoint()
			r.Close()
		}
		if len(found) >= want {
			return found, cps
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the commit log holds %d of the %d values", len(found), want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
