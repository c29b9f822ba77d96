package dump_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/dump"
)

var corpusRoot = flag.String("corpus", corpus.Root(), "corpus root (committed, or regenerated: SSTF_CORPUS)")

// TestMatchesSSTableDump is the reader's differential test: for every
// Data.db of every mode, our dump equals Cassandra's sstabledump output
// after normalising formatting only (see the package comment).
func TestMatchesSSTableDump(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(*corpusRoot, "*", "*", "*", "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3*29 {
		t.Fatalf("found %d Data.db files under %s", len(files), *corpusRoot)
	}
	for _, f := range files {
		t.Run(corpus.SSTableCase(f), func(t *testing.T) {
			prefix := strings.TrimSuffix(filepath.Base(f), "-Data.db")
			want, err := os.ReadFile(filepath.Join(filepath.Dir(f), "sstabledump", prefix+".json"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := sstable.Open(f, sstable.Options{})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var got bytes.Buffer
			err = dump.Write(&got, r, dump.Options{})
			r.Close()
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if diff := Diff(normalize(t, want), normalize(t, got.Bytes()), "$"); diff != "" {
				t.Errorf("%s differs from sstabledump: %s", f, diff)
			}
		})
	}
}

func normalize(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode dump: %v\n%.300s", err, b)
	}
	return strip(v)
}

// strip drops the wall-clock-dependent "expired" flags.
func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "expired")
		for k, e := range x {
			x[k] = strip(e)
		}
	case []any:
		for i, e := range x {
			x[i] = strip(e)
		}
	}
	return v
}

// Diff reports the first difference between two parsed JSON values, with
// numbers compared by exact decimal value.
func Diff(want, got any, at string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want object, got %v", at, got)
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if d := Diff(w[k], g[k], at+"."+k); d != "" {
				return d
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: want %d elements %.200v, got %.200v", at, len(w), w, got)
		}
		for i := range w {
			if d := Diff(w[i], g[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: want %s, got %v", at, w, got)
		}
		if !sameNumber(string(w), string(g)) {
			return fmt.Sprintf("%s: want %s, got %s", at, w, g)
		}
	default:
		if want != got {
			return fmt.Sprintf("%s: want %#v, got %#v", at, want, got)
		}
	}
	return ""
}

// sameNumber: equal exact decimal values, or two spellings of the same
// float. Java 17's Float.toString sometimes prints more digits than the
// shortest round-trip form (1.17549435E-38 for 1.1754944E-38), so float
// spellings of at most 9 significant digits are equal when they parse to
// the same float32; doubles must parse to the same float64.
func sameNumber(a, b string) bool {
	x, xok := new(big.Rat).SetString(a)
	y, yok := new(big.Rat).SetString(b)
	if xok && yok && x.Cmp(y) == 0 {
		return true
	}
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil {
		return false
	}
	if fa == fb {
		return true
	}
	return digits(a) <= 9 && digits(b) <= 9 && float32(fa) == float32(fb)
}

func digits(s string) int {
	n := 0
	for _, c := range strings.TrimLeft(strings.SplitN(strings.ToLower(s), "e", 2)[0], "-0.") {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}
