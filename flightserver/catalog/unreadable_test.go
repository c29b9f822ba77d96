package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestUnreadableTableLeavesTheOthers checks, against a real Cassandra 5.0
// node, that a table with a column of a type this reader does not know
// (LexicalUUIDType, which CQL takes as a custom type) is one unreadable
// table with the column named, while every other table of the node is
// read from system_schema, an EmptyType column (spelled "empty" there)
// included. Before, one such column made the whole schema unreadable, and
// every table fell back to its SSTables' headers (columns named key,
// column1, ...).
func TestUnreadableTableLeavesTheOthers(t *testing.T) {
	const ks = "catalog_unreadable"
	n := cassandratest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: the keyspace is dropped, then the session closed.
	t.Cleanup(s.Close)
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".plain (k int PRIMARY KEY, v text)",
		"CREATE TABLE " + ks + ".emptied (k int PRIMARY KEY, v text, e 'org.apache.cassandra.db.marshal.EmptyType')",
		"CREATE TABLE " + ks + ".lexical (k int PRIMARY KEY, u 'org.apache.cassandra.db.marshal.LexicalUUIDType')",
	} {
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })

	schema, err := FromCassandra(ctx, s)
	if err != nil {
		t.Fatalf("one unreadable table failed the schema: %v", err)
	}
	if _, ok := schema.Lookup(ks, "plain"); !ok {
		t.Errorf("%s.plain not read", ks)
	}
	emptied, ok := schema.Lookup(ks, "emptied")
	if !ok {
		t.Fatalf("%s.emptied not read: %v", ks, schema.Problem(ks, "emptied"))
	}
	if c, ok := emptied.Column("e"); !ok || c.Type.Kind != marshal.Empty {
		t.Errorf("emptied.e = %+v, want an EmptyType column", c)
	}
	if _, ok := schema.Lookup(ks, "lexical"); ok {
		t.Errorf("%s.lexical listed with a column it cannot read", ks)
	}
	problem := schema.Problem(ks, "lexical")
	if problem == nil || !strings.Contains(problem.Error(), "lexical.u") {
		t.Errorf("problem of lexical = %v, want one naming the column lexical.u", problem)
	}

	// Through the catalog: the unreadable table is that error, not a guess from headers.
	c := New(Options{Session: s})
	if _, err := c.Table(ctx, ks, "plain", "", nil); err != nil {
		t.Errorf("plain: %v", err)
	}
	_, err = c.Table(ctx, ks, "lexical", "", nil)
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("lexical: %v, want its schema's error", err)
	}
}
