package flightserver_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/arrow from this server's reads of the oa corpus")

// goldenDir holds the Arrow IPC streams this server sends for each table
// of the oa corpus: the Trino connector's page tests (trino/) read the
// same files, so both languages agree on every Arrow type the server
// emits. <table>.arrows is SELECT * at the table's CQL read time;
// clustered.count.arrows is a count-only read.
func goldenDir() string { return filepath.Join("..", "testdata", "arrow") }

// TestArrowGolden: the committed golden streams are what the server
// sends today, schema (with its cql.* metadata) and batches alike. After
// a deliberate change to the Arrow output, rewrite them with
// `go test ./flightserver -run TestArrowGolden -update-golden` and run
// the Trino connector's tests.
func TestArrowGolden(t *testing.T) {
	mc, err := corpus.Load(filepath.Join(corpusRoot(), "oa"))
	if err != nil {
		t.Fatal(err)
	}
	var now time.Time
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.Now = func() time.Time { return now }
	})
	check := func(t *testing.T, name string, desc *flight.FlightDescriptor) {
		info, err := ts.client.GetFlightInfo(context.Background(), desc)
		if err != nil {
			t.Fatal(err)
		}
		schema, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got := ts.readAll(t, info)
		file := filepath.Join(goldenDir(), name+".arrows")
		if *updateGolden {
			writeGolden(t, file, schema, got)
			return
		}
		wantSchema, want := readGolden(t, file)
		if !wantSchema.Equal(schema) || !equalMetadata(wantSchema, schema) {
			t.Fatalf("%s: schema changed:\n%s\nwant\n%s", file, schema, wantSchema)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d batches, the golden stream has %d", file, len(got), len(want))
		}
		for i := range got {
			// NaN equals NaN here (the corpus holds NaNs); with no
			// tolerance every other float must match exactly.
			if got[i].NumRows() != want[i].NumRows() || !array.RecordApproxEqual(got[i], want[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Fatalf("%s: batch %d differs:\n%v\nwant\n%v", file, i, got[i], want[i])
			}
		}
	}
	cases := corpus.NewCases(t)
	for _, tbl := range mc.Sorted() {
		cases.Run(tbl.Name, func(t *testing.T) {
			now = time.Unix(tbl.Expected.ReadAt, 0)
			check(t, tbl.Name, path(corpus.Keyspace, tbl.Name))
		})
	}
	cases.Run("clustered.count", func(t *testing.T) {
		now = time.Unix(mc.Tables["clustered"].Expected.ReadAt, 0)
		check(t, "clustered.count", cmd(t, map[string]any{
			"version": 1, "keyspace": corpus.Keyspace, "table": "clustered", "count_only": true}))
	})
}

// equalMetadata compares the schema's and every field's metadata, which
// Schema.Equal leaves out.
func equalMetadata(a, b *arrow.Schema) bool {
	if !a.Metadata().Equal(b.Metadata()) {
		return false
	}
	for i := range a.Fields() {
		if !a.Field(i).Metadata.Equal(b.Field(i).Metadata) {
			return false
		}
	}
	return true
}

func writeGolden(t *testing.T, file string, schema *arrow.Schema, recs []arrow.RecordBatch) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := ipc.NewWriter(f, ipc.WithSchema(schema))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readGolden(t *testing.T, file string) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("open golden stream (rewrite with -update-golden): %v", err)
	}
	defer f.Close()
	r, err := ipc.NewReader(f)
	if err != nil {
		t.Fatalf("read golden stream %s: %v", file, err)
	}
	defer r.Release()
	var out []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("read golden stream %s: %v", file, err)
	}
	t.Cleanup(func() {
		for _, rec := range out {
			rec.Release()
		}
	})
	return r.Schema(), out
}
