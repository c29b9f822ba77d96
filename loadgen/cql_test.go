package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestCompareCQLSameOps runs both arms against a real node and the server
// over that node's flushed SSTables: for the same op numbers, every shape
// reads the same rows through CQL as through Flight (so the ratios divide
// like by like), over a bigint key and a composite (text, date) key, and a
// run with CompareCQL prints the CQL table and the ratios.
func TestCompareCQLSameOps(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx := context.Background()
	s := node.FreshKeyspace(t, "loadgen_it",
		"CREATE TABLE loadgen_it.kv (id bigint PRIMARY KEY, v text)",
		"CREATE TABLE loadgen_it.ts (tenant text, day date, seq int, v text, PRIMARY KEY ((tenant, day), seq))",
		"CREATE TABLE loadgen_it.tsd (tenant text, seq int, v text, PRIMARY KEY (tenant, seq)) WITH CLUSTERING ORDER BY (seq DESC)")
	const kvRows = 400
	for i := range kvRows {
		if err := s.Query("INSERT INTO loadgen_it.kv (id, v) VALUES (?, ?)", int64(i-200)*7_919_000_000_001, fmt.Sprintf("v%d", i)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	day0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for p := range 40 {
		for seq := range 1 + p%6 {
			q := "INSERT INTO loadgen_it.ts (tenant, day, seq, v) VALUES (?, ?, ?, ?)"
			if err := s.Query(q, fmt.Sprintf("t%d", p%4), day0.AddDate(0, 0, p/4), seq, "x").Exec(); err != nil {
				t.Fatal(err)
			}
			if err := s.Query("INSERT INTO loadgen_it.tsd (tenant, seq, v) VALUES (?, ?, ?)", fmt.Sprintf("t%d", p%5), p*10+seq, "y").Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := node.Flush(ctx, "loadgen_it"); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(catalog.New(catalog.Options{Session: s}))
	})

	for _, c := range []struct {
		table, shape string
		rows         int64 // every op's rows; 0: varies by op
	}{
		{"kv", ShapePoint, 1}, {"kv", ShapeIn, 5}, {"kv", ShapeLimit, 5}, {"kv", ShapeScan, kvRows}, {"kv", ShapeRange, 0},
		{"ts", ShapePoint, 0}, {"ts", ShapeIn, 0}, {"ts", ShapeRange, 0}, {"ts", ShapeSlice, 0}, {"tsd", ShapeSlice, 0},
	} {
		cfg := ts.config(c.table, c.shape)
		cfg.Keyspace, cfg.CompareCQL, cfg.K, cfg.RangeFraction = "loadgen_it", node.Addr(), 5, 3
		cfg.defaults()
		ft, p, schema := target(t, cfg)
		cs, err := newCQLSession(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		ct, err := newCQLTarget(cs, schema, &cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		varied := map[int64]bool{}
		for op := range uint64(15) {
			fr, ferr := ft.Do(ctx, op)
			cr, cerr := ct.Do(ctx, op)
			if ferr != nil || cerr != nil {
				t.Fatalf("%s %s op %d: flight %v, cql %v", c.table, c.shape, op, ferr, cerr)
			}
			if fr.Rows != cr.Rows || (c.rows != 0 && fr.Rows != c.rows) {
				t.Errorf("%s %s op %d: flight %d rows, cql %d, want equal (and %d when not 0)", c.table, c.shape, op, fr.Rows, cr.Rows, c.rows)
			}
			if fr.Rows > 0 && (fr.Bytes <= 0 || cr.Bytes <= 0) {
				t.Errorf("%s %s op %d: bytes flight %d, cql %d", c.table, c.shape, op, fr.Bytes, cr.Bytes)
			}
			varied[fr.Rows] = true
		}
		if c.rows == 0 && len(varied) < 2 {
			t.Errorf("%s %s: every op read %v rows: the comparison does not tell ops apart", c.table, c.shape, varied)
		}
		cs.Close()
	}

	var out bytes.Buffer
	cfg := ts.config("ts", ShapePoint)
	cfg.Keyspace, cfg.CompareCQL, cfg.Ramp, cfg.Out = "loadgen_it", node.Addr(), []int{1, 2}, &out
	rep := run(t, cfg)
	if len(rep.CQL) != 2 {
		t.Fatalf("%d CQL steps, want 2", len(rep.CQL))
	}
	for i := range rep.CQL {
		checkNoErrors(t, rep.CQL[i])
		if rep.CQL[i].Arm != "cql" || rep.CQL[i].ServerCPUSeconds != nil {
			t.Errorf("CQL step %d: %+v", i, rep.CQL[i])
		}
	}
	for _, want := range []string{"cql loadgen_it.ts point", "ops/s     Flight/CQL", "p99       CQL/Flight"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
