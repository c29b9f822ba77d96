package catalog

import (
	"context"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestNewTableIsReadFromCassandraAtOnce checks, against a real Cassandra
// 5.0 node, that a table created after the catalog read the schema is
// read from Cassandra on its first lookup, though the next periodic check
// is an hour away: before, it was served from its SSTables' headers (its
// columns named key, column1, ...) until that check.
func TestNewTableIsReadFromCassandraAtOnce(t *testing.T) {
	const ks = "catalog_newtable"
	n := cassandratest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: the keyspace is dropped, then the session closed.
	t.Cleanup(s.Close)
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("DROP KEYSPACE IF EXISTS " + ks)
	exec("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	exec("CREATE TABLE " + ks + ".first (k int PRIMARY KEY)")

	clock := time.Unix(1_800_000_000, 0)
	c := New(Options{Session: s, CheckInterval: time.Hour, Now: func() time.Time { return clock }})
	if _, err := c.Table(ctx, ks, "first", "", nil); err != nil {
		t.Fatal(err)
	}
	exec(`CREATE TABLE ` + ks + `.second ("Id" int PRIMARY KEY, v text)`)
	// Within MissRecheck of the last check the miss is not asked about again ...
	if _, err := c.Table(ctx, ks, "second", "", nil); err == nil {
		t.Fatalf("second found within MissRecheck of the last check")
	}
	// ... after it, at once, though the periodic check is an hour away.
	clock = clock.Add(MissRecheck)
	tab, err := c.Table(ctx, ks, "second", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Source != SourceCassandra {
		t.Errorf("second read from %s, want cassandra", tab.Source)
	}
	if _, ok := tab.Column("Id"); !ok {
		t.Errorf("second has no column Id: %+v", tab.Columns)
	}
}
