package flightserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

// TestNamedVersion reads a table whose keyspace, table and a column are
// all named version (a common column name, and the name of the command's
// version field): planned through GetFlightInfo with a projection that
// includes the column, then read with the command itself as the DoGet
// ticket. Every row Cassandra has must come back, both ways.
func TestNamedVersion(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx := context.Background()
	// Written under a keyspace of this test's own; the copy below serves
	// it as keyspace version.
	s := node.FreshKeyspace(t, "small_version",
		"CREATE TABLE small_version.version (id int, version int, v text, PRIMARY KEY (id, version))")
	var want []string
	for id := range 5 {
		for ver := range 3 {
			if err := s.Query("INSERT INTO small_version.version (id, version, v) VALUES (?, ?, ?)", id, ver, fmt.Sprintf("v%d.%d", id, ver)).Exec(); err != nil {
				t.Fatal(err)
			}
			want = append(want, fmt.Sprintf("%d|%d|v%d.%d", id, ver, id, ver))
		}
	}
	if err := node.Flush(ctx, "small_version"); err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)

	// The node's table directory, copied (never served in place: the node
	// owns it) under the keyspace name version, with its schema beside it.
	// (A dropped table's directory stays behind: take the current id's.)
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = 'small_version' AND table_name = 'version'").Scan(&id); err != nil {
		t.Fatal(err)
	}
	dirName := "version-" + strings.ReplaceAll(id.String(), "-", "")
	src := filepath.Join(node.DataDir(), "small_version", dirName)
	data := t.TempDir()
	dst := filepath.Join(data, "version", dirName)
	corpus.CopyDir(t, src, dst)
	schema := "CREATE TABLE version.version (id int, version int, v text, PRIMARY KEY (id, version));\n"
	if err := os.WriteFile(filepath.Join(dst, "schema.cql"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "", func(c *flightserver.Config) { c.DataDir = data })

	rows := func(recs []arrow.RecordBatch) []string {
		var out []string
		for _, r := range recs {
			var id, ver *array.Int32
			var v *array.String
			for i, f := range r.Schema().Fields() {
				switch f.Name {
				case "id":
					id = r.Column(i).(*array.Int32)
				case "version":
					ver = r.Column(i).(*array.Int32)
				case "v":
					v = r.Column(i).(*array.String)
				}
			}
			for i := range int(r.NumRows()) {
				out = append(out, fmt.Sprintf("%d|%d|%s", id.Value(i), ver.Value(i), v.Value(i)))
			}
		}
		sort.Strings(out)
		return out
	}

	info, err := ts.client.GetFlightInfo(ctx, cmd(t, map[string]any{"version": 1, "keyspace": "version", "table": "version",
		"columns": []string{"version", "v", "id"}, "splits": 2}))
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(ts.readAll(t, info)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("planned read:\n got %q\nwant %q", got, want)
	}

	// The command as its own ticket: a key read and a one-split scan.
	for _, c := range []string{
		`{"version":1,"keyspace":"version","table":"version","columns":["version","v","id"],"keys":[{"id":3}]}`,
		`{"keyspace":"version","table":"version","columns":["id","v","version"],"splits":1,"version":1}`,
	} {
		stream, err := ts.client.DoGet(ctx, flightTicket([]byte(c)))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := newReader(stream)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var recs []arrow.RecordBatch
		for rd.Next() {
			rec := rd.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		if err := rd.Err(); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		rd.Release()
		got := rows(recs)
		for _, r := range recs {
			r.Release()
		}
		w := want
		if strings.Contains(c, `"keys"`) {
			w = w[9:12] // id 3
		}
		if strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Fatalf("%s:\n got %q\nwant %q", c, got, w)
		}
	}
}
