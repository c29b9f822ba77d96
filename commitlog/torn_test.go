package commitlog_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// TestTornTailEveryByte cuts each fixture's workload segment at every
// byte of its last mutation (and of the whole last section, for a
// compressed segment, whose sections are all or nothing): read live, the
// reader stops without an error after the last whole entry it can reach
// — never a partial one — and a reading resumed from its checkpoint on
// the whole file hands out exactly the entries it had not.
func TestTornTailEveryByte(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			path, b := f.dataSegment(t)
			full := readBytes(t, b, path, commitlog.Options{})
			if full.err != nil || len(full.entries) == 0 {
				t.Fatalf("whole segment: %v, %d entries", full.err, len(full.entries))
			}
			n := len(full.entries)
			last := full.entries[n-1]
			lastMarker := full.marks[n-1].Marker
			from, to := last.Start-1, last.Position.Offset+markerEnd
			if f.Compression != "" {
				from, to = lastMarker, int64(len(b))
			}
			for k := from; k < to && k <= int64(len(b)); k++ {
				cut := b[:k]
				live := readBytes(t, cut, path, commitlog.Options{Live: true})
				if live.err != nil {
					t.Fatalf("cut at %d: %v", k, live.err)
				}
				want := 0
				for i, e := range full.entries {
					whole := e.Position.Offset <= k
					if f.Compression != "" {
						whole = full.marks[i].Marker < lastMarker || k == int64(len(b))
					}
					if whole {
						want++
					}
				}
				if len(live.entries) != want {
					t.Fatalf("cut at %d: %d entries, want %d (torn %v)", k, len(live.entries), want, live.torn)
				}
				for i, e := range live.entries {
					if e.Position != full.entries[i].Position || !bytes.Equal(e.Mutation, full.entries[i].Mutation) {
						t.Fatalf("cut at %d: entry %d differs from the whole segment's", k, i)
					}
				}
				resumed := readBytes(t, b, path, commitlog.Options{Live: true, From: live.cp})
				if resumed.err != nil || len(live.entries)+len(resumed.entries) != n {
					t.Fatalf("cut at %d, resumed at %+v: %v, %d + %d entries of %d", k, live.cp, resumed.err, len(live.entries), len(resumed.entries), n)
				}
				if len(resumed.entries) > 0 && resumed.entries[0].Position != full.entries[len(live.entries)].Position {
					t.Fatalf("cut at %d: resumed at %+v, not at the next entry", k, resumed.entries[0].Position)
				}
				// Not live, the cut is corruption once it falls inside
				// a section whose marker is whole.
				closed := readBytes(t, cut, path, commitlog.Options{})
				if closed.err != nil && !errors.Is(closed.err, commitlog.ErrCorruption) {
					t.Fatalf("cut at %d, not live: %v", k, closed.err)
				}
				if k > lastMarker+12 && k < int64(len(b)) && k < last.Position.Offset && closed.err == nil {
					t.Fatalf("cut at %d, not live: no error", k)
				}
			}
		})
	}
}

// markerEnd covers the zero marker after the last entry.
const markerEnd = 8
