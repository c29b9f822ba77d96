package reconcile_test

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/overlay"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// randUnflushed is the never-flushed mode of TestRandomMatchesCQL (issue
// #28): the last rounds of each case are not flushed, and the merge reads
// their writes from the commit log, as the server does: the overlay's
// runs, sealed against the SSTables' commit log intervals.
var randUnflushed = flag.Int("reconcile.unflushed", 0, "TestRandomMatchesCQL: the last N rounds of each case are not flushed; the merge reads them from the commit log")

// logReader reads the shared node's commit log for the cases.
type logReader struct {
	s    *gocql.Session
	ov   *overlay.Overlay
	host metadata.UUID
	mu   sync.Mutex
}

func newLogReader(t *testing.T, n *cassandratest.Node, s *gocql.Session) *logReader {
	t.Helper()
	var host gocql.UUID
	if err := s.Query("SELECT host_id FROM system.local").Scan(&host); err != nil {
		t.Fatal(err)
	}
	return &logReader{s: s, host: metadata.UUID(host), ov: overlay.New(overlay.Config{Dir: filepath.Join(n.Dir, "commitlog")})}
}

// refresh gives the overlay the cases' tables as the node's schema has
// them now.
func (l *logReader) refresh(ctx context.Context) error {
	sch, err := catalog.FromCassandra(ctx, l.s)
	if err != nil {
		return err
	}
	tables := map[commitlog.TableID]overlay.Table{}
	for _, t := range sch.Tables {
		if t.Keyspace != randKeyspace {
			continue
		}
		id, err := commitlog.ParseTableID(t.ID)
		if err != nil {
			return err
		}
		tables[id] = overlay.Table{Name: t.Keyspace + "." + t.Name, Header: t.Header()}
	}
	l.ov.SetTables(tables)
	return nil
}

// runs polls the log and seals the table of dir's writes that readers
// do not hold.
func (l *logReader) runs(dir string, readers []*sstable.Reader) ([]*sstable.Reader, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.ov.Poll(); err != nil {
		return nil, err
	}
	base := filepath.Base(dir)
	id, err := commitlog.ParseTableID(base[strings.LastIndexByte(base, '-')+1:])
	if err != nil {
		return nil, err
	}
	stats := make([]*metadata.StatsMetadata, len(readers))
	for i, r := range readers {
		stats[i] = &r.Stats.Stats
	}
	persisted, skipped := commitlog.NewPersisted(l.host, stats, commitlog.NoPosition)
	if len(skipped) > 0 {
		return nil, fmt.Errorf("%d SSTables of %s of another or no host", len(skipped), hex.EncodeToString(id[:]))
	}
	runs, _, err := l.ov.Runs(id, persisted)
	return runs, err
}
