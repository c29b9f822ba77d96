package loadgen

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// clusteredRows reads corpus.clustered's expected.json: per partition
// (canonical key), the first clustering column's value of each row.
func clusteredRows(t *testing.T) map[string][]int64 {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(corpusDir, "corpus", "clustered-*", "expected.json"))
	if len(dirs) != 1 {
		t.Fatalf("expected.json of clustered: %v", dirs)
	}
	b, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []struct{ Values map[string]json.RawMessage }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]int64{}
	for _, r := range doc.Rows {
		raw, _ := json.Marshal(map[string]json.RawMessage{"tenant": r.Values["tenant"], "bucket": r.Values["bucket"]})
		if string(r.Values["c_int"]) == "null" {
			continue // static-only row
		}
		v, err := strconv.ParseInt(string(r.Values["c_int"]), 10, 64)
		if err != nil {
			t.Fatalf("c_int %s: %v", r.Values["c_int"], err)
		}
		k := canonical(t, raw)
		out[k] = append(out[k], v)
	}
	return out
}

// TestSliceRowsExact: a slice op reads exactly the rows of its key whose
// first clustering value lies between its two sampled bounds.
func TestSliceRowsExact(t *testing.T) {
	ts := startServer(t)
	rows := clusteredRows(t)
	cfg := ts.config("clustered", ShapeSlice)
	c, s := connect(t, &cfg)
	ctx := context.Background()
	sample, err := sampleKeys(ctx, c, s, cfg.Keys, cfg.ScanSplits, cfg.Seed, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(sample.Keys) != len(rows) {
		t.Fatalf("%d keys with rows sampled, the table has %d", len(sample.Keys), len(rows))
	}
	p := &plan{seed: cfg.Seed, keys: sample.Keys}
	ft, err := newFlightTarget(c, s, &cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	narrower := 0
	for op := range uint64(60) {
		k, lo, hi := p.sliceFor(op)
		a, _ := strconv.ParseInt(string(lo.JSON), 10, 64)
		b, _ := strconv.ParseInt(string(hi.JSON), 10, 64)
		a, b = min(a, b), max(a, b)
		want := int64(0)
		for _, v := range rows[canonical(t, k.JSON)] {
			if v >= a && v <= b {
				want++
			}
		}
		if want < int64(len(rows[canonical(t, k.JSON)])) {
			narrower++
		}
		res, err := ft.Do(ctx, op)
		if err != nil {
			t.Fatalf("slice op %d: %v", op, err)
		}
		if res.Rows != want {
			t.Errorf("slice op %d (%s): %d rows, want %d", op, ft.descriptor(op).Cmd, res.Rows, want)
		}
	}
	if narrower == 0 {
		t.Error("no slice was narrower than its partition: the bounds are untested")
	}
}

// TestMixDrawsEveryShape: a mix runs each shape in about its share of
// the ops, the same shape for the same op in a rerun, and a step of it
// completes without errors.
func TestMixDrawsEveryShape(t *testing.T) {
	mix, err := ParseMix("point:6, scan:3,limit:1")
	if err != nil {
		t.Fatal(err)
	}
	p := &plan{seed: 7}
	counts := map[string]int{}
	for op := range uint64(10_000) {
		s := p.shapeFor(op, mix)
		if s != (&plan{seed: 7}).shapeFor(op, mix) {
			t.Fatalf("op %d: shape not reproducible", op)
		}
		counts[s]++
	}
	for _, m := range mix {
		share := float64(counts[m.Shape]) / 10_000
		if want := float64(m.Weight) / 10; share < want-0.03 || share > want+0.03 {
			t.Errorf("shape %s: %.3f of ops, want about %.1f", m.Shape, share, want)
		}
	}
	for _, bad := range []string{"", "point", "point:0", "point:x", "mix:1"} {
		m, err := ParseMix(bad)
		if err == nil {
			cfg := Config{Keyspace: "k", Table: "t", Shape: ShapeMix, Mix: m}
			err = cfg.resolve()
		}
		if err == nil {
			t.Errorf("mix %q accepted", bad)
		}
	}
	ts := startServer(t)
	cfg := ts.config("clustered", ShapeMix)
	cfg.Mix = []MixEntry{{ShapePoint, 5}, {ShapeSlice, 3}, {ShapeScan, 1}}
	s := run(t, cfg).Flight[0]
	checkNoErrors(t, s)
	if s.Ops == 0 {
		t.Fatal("mix step ran no op")
	}
}
