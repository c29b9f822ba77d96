package commitlog_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

func pos(seg int64, off int64) commitlog.Position {
	return commitlog.Position{SegmentID: seg, Offset: off}
}

func stats(host *metadata.UUID, iv ...[4]int64) *metadata.StatsMetadata {
	st := &metadata.StatsMetadata{OriginatingHostID: host}
	for _, v := range iv {
		st.CommitLogIntervals = append(st.CommitLogIntervals, metadata.CommitLogInterval{
			Start: metadata.CommitLogPosition{SegmentID: v[0], Position: int32(v[1])},
			End:   metadata.CommitLogPosition{SegmentID: v[2], Position: int32(v[3])},
		})
	}
	return st
}

// TestPersisted: closed intervals, merged across SSTables, only this
// node's SSTables counted, the truncation covering everything before it.
func TestPersisted(t *testing.T) {
	me, other := metadata.UUID{1}, metadata.UUID{2}
	p, skipped := commitlog.NewPersisted(me, []*metadata.StatsMetadata{
		stats(&me, [4]int64{10, 100, 10, 200}),
		stats(&other, [4]int64{10, 300, 12, 0}), // another node's log
		stats(nil, [4]int64{13, 0, 13, 500}),    // no originating host: whose log?
		stats(&me, [4]int64{10, 150, 11, 50}, [4]int64{11, 60, 11, 70}),
	}, pos(9, 1000))
	if len(skipped) != 2 || skipped[0] != 1 || skipped[1] != 2 {
		t.Fatalf("skipped %v, want [1 2]", skipped)
	}
	for _, c := range []struct {
		at   commitlog.Position
		want bool
	}{
		{pos(8, 5), true}, {pos(9, 1000), true}, {pos(9, 1001), false}, // truncation, inclusive
		{pos(10, 99), false}, {pos(10, 100), true}, {pos(10, 200), true}, // closed ends
		{pos(10, 250), true}, {pos(10, 350), true}, {pos(11, 50), true}, // merged with the overlapping interval
		{pos(11, 55), false}, {pos(11, 60), true}, {pos(11, 70), true}, {pos(11, 71), false},
		{pos(12, 0), false}, {pos(13, 100), false}, // only the skipped SSTables' ranges
	} {
		if got := p.Covers(c.at); got != c.want {
			t.Errorf("Covers(%+v) = %v, want %v", c.at, got, c.want)
		}
	}
	none, _ := commitlog.NewPersisted(me, nil, commitlog.NoPosition)
	if none.Covers(pos(0, 0)) || none.Covers(commitlog.NoPosition) {
		t.Error("no SSTables and no truncation cover nothing")
	}
}

// TestPersistedOnLiveNode: on the shared node, after this test flushes its
// table, the SSTable's intervals cover every update written before the
// flush, and none written after it, as Cassandra's replay would decide.
// Another test's flush of every table (or commit log pressure) may flush
// the later updates too: then only the first half is judged.
func TestPersistedOnLiveNode(t *testing.T) {
	n := cassandratest.Shared(t)
	ctx := context.Background()
	nonce := fmt.Sprintf("cl-persist-%d", time.Now().UnixNano())
	s := n.FreshKeyspace(t, "commitlog_persist", "CREATE TABLE commitlog_persist.kv (k int PRIMARY KEY, v text)")
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if err := s.Query("INSERT INTO commitlog_persist.kv (k, v) VALUES (?, ?)", i, fmt.Sprintf("%s-%03d", nonce, i)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0, 20)
	if err := n.Flush(ctx, "commitlog_persist", "kv"); err != nil {
		t.Fatal(err)
	}
	write(20, 40)
	wantVersion := 8
	if n.Mode == cassandratest.ModeNB {
		wantVersion = 7
	}
	found, _ := waitFor(t, filepath.Join(n.Dir, "commitlog"), nonce, 40, nil, wantVersion)

	var hostID gocql.UUID
	if err := s.Query("SELECT host_id FROM system.local").Scan(&hostID); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(n.DataDir(), "commitlog_persist", "kv-*", "*-Statistics.db"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the flushed SSTable's Statistics.db: %v %v", files, err)
	}
	var sts []*metadata.StatsMetadata
	for _, f := range files {
		d, err := metadata.ParseDescriptor(filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		v, err := metadata.ParseVersion(d.Version, d.Format)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st, err := metadata.ParseStatistics(b, f, v)
		if err != nil {
			t.Fatal(err)
		}
		sts = append(sts, &st.Stats)
	}
	p, skipped := commitlog.NewPersisted(metadata.UUID(hostID), sts, commitlog.NoPosition)
	if len(skipped) != 0 {
		t.Fatalf("SSTables %v of this node's flush skipped: originating host is not system.local's %s", skipped, hostID)
	}
	for i := range 40 {
		at, ok := found[fmt.Sprintf("%s-%03d", nonce, i)]
		if !ok {
			t.Fatalf("value %d not in the commit log", i)
		}
		switch covered := p.Covers(at); {
		case i < 20 && !covered:
			t.Errorf("value %d, flushed, at %+v: not covered by %d SSTables' intervals", i, at, len(sts))
		case i >= 20 && covered && len(sts) == 1:
			t.Errorf("value %d, written after the only flush, at %+v: covered", i, at)
		}
	}
	if len(sts) > 1 {
		t.Logf("%d SSTables: another flush took the later writes too; judged the flushed half only", len(sts))
	}
}
