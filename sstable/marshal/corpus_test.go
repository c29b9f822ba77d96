package marshal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

// headerEntry is one type string found in a Statistics.db serialization
// header, with the column name written right before it (regular and static
// columns are name/type pairs; the key and clustering types are unnamed).
type headerEntry struct {
	name string // "" when unnamed
	typ  string
}

// scanHeader finds the vint-length-prefixed type strings of a
// Statistics.db without decoding the rest of the file: it looks for the
// package prefix and accepts the 2- or 1-byte length before it that yields a
// string Parse accepts, then skips past it so nested class names are not
// read as entries of their own. Any prefix occurrence that yields no such
// string is returned in bad.
func scanHeader(data []byte, columns map[string]bool) (entries []headerEntry, bad []int) {
	prefix := []byte("org.apache.cassandra.db.marshal.")
	for off := 0; ; {
		j := bytes.Index(data[off:], prefix)
		if j < 0 {
			return entries, bad
		}
		j += off
		type cand struct{ start, n int }
		var cands []cand
		for _, start := range []int{j - 2, j - 1} {
			if start < 0 {
				continue
			}
			if l, n, err := ReadUvint(data[start:]); err == nil && start+n == j {
				cands = append(cands, cand{start, int(l)})
			}
		}
		found := false
		for _, c := range cands {
			if j+c.n > len(data) {
				continue
			}
			s := string(data[j : j+c.n])
			if _, err := Parse(s); err != nil {
				continue
			}
			e := headerEntry{typ: s}
			for n := 1; n < 128 && c.start-n-1 >= 0; n++ {
				if int(data[c.start-n-1]) == n && columns[string(data[c.start-n:c.start])] {
					e.name = string(data[c.start-n : c.start])
					break
				}
			}
			entries = append(entries, e)
			off, found = j+c.n, true
			break
		}
		if !found {
			bad = append(bad, j)
			off = j + 1
		}
	}
}

type expectedColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Kind     string `json:"kind"`
	Position int    `json:"position"`
	Order    string `json:"clustering_order"`
}

// TestCorpusHeaders reads every Statistics.db of the committed corpus and
// checks each header type string against the table's expected.json: the
// named (regular/static) ones by column name, the first unnamed one as the
// partition key type and the rest as the clustering types in order, with
// Reversed matching DESC clustering order. Every string must also be in
// realTypes and Marshal back to itself.
func TestCorpusHeaders(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/*/corpus/*/*-Statistics.db")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus Statistics.db files (%v)", err)
	}
	known := map[string]bool{}
	for _, tc := range realTypes {
		known[tc.in] = true
	}
	seen := map[string]bool{}
	named := 0
	cases := corpus.NewCases(t)
	for _, f := range files {
		cases.Run(corpus.SSTableCase(f), func(t *testing.T) {
			var exp struct {
				Columns []expectedColumn `json:"columns"`
			}
			raw, err := os.ReadFile(filepath.Join(filepath.Dir(f), "expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &exp); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			byName := map[string]expectedColumn{}
			cells := map[string]bool{}
			var pk, ck []expectedColumn
			for _, c := range exp.Columns {
				byName[c.Name] = c
				switch c.Kind {
				case "regular", "static":
					cells[c.Name] = true
				case "partition_key":
					pk = append(pk, c)
				case "clustering":
					ck = append(ck, c)
				}
			}
			// A dropped column stays in the headers of SSTables written before
			// the drop; schema.cql lists it ("DROP col USING TIMESTAMP").
			if schema, err := os.ReadFile(filepath.Join(filepath.Dir(f), "schema.cql")); err == nil {
				for _, m := range regexp.MustCompile(`DROP (\w+) USING TIMESTAMP`).FindAllStringSubmatch(string(schema), -1) {
					cells[m[1]] = true
				}
			}
			sort.Slice(pk, func(a, b int) bool { return pk[a].Position < pk[b].Position })
			sort.Slice(ck, func(a, b int) bool { return ck[a].Position < ck[b].Position })

			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			entries, bad := scanHeader(data, cells)
			if len(bad) > 0 {
				t.Errorf("%s: type strings at offsets %v do not parse", f, bad)
			}
			var unnamed []*Type
			for _, e := range entries {
				seen[e.typ] = true
				if !known[e.typ] {
					t.Errorf("%s: %q is missing from realTypes", f, e.typ)
				}
				ty, err := Parse(e.typ)
				if err != nil {
					t.Fatal(err) // scanHeader only returns strings that parse
				}
				if m := ty.Marshal(); m != e.typ {
					t.Errorf("%s: Marshal() = %q, want %q", f, m, e.typ)
				}
				if e.name == "" {
					unnamed = append(unnamed, ty)
					continue
				}
				named++
				if _, current := byName[e.name]; !current {
					continue // a dropped column: no current type to compare
				}
				if want := byName[e.name].Type; ty.String() != want {
					t.Errorf("%s: column %s: %q renders %q, want %q", f, e.name, e.typ, ty.String(), want)
				}
			}
			// The header is the file's last component; the STATS component
			// before it holds type strings of its own in 5.0 "oa" files (seen,
			// not decoded here), so the key and clustering types are the last
			// unnamed ones.
			if len(unnamed) < 1+len(ck) {
				t.Errorf("%s: %d unnamed header types, want key + %d clustering", f, len(unnamed), len(ck))
				return
			}
			unnamed = unnamed[len(unnamed)-1-len(ck):]
			key := unnamed[0]
			if len(pk) == 1 {
				if key.String() != pk[0].Type {
					t.Errorf("%s: key type renders %q, want %q", f, key.String(), pk[0].Type)
				}
			} else if key.Kind != Composite || len(key.Elems) != len(pk) {
				t.Errorf("%s: key type %q for %d partition key columns", f, key.Marshal(), len(pk))
			} else {
				for i, c := range pk {
					if key.Elems[i].String() != c.Type {
						t.Errorf("%s: key component %d renders %q, want %q", f, i, key.Elems[i].String(), c.Type)
					}
				}
			}
			for i, c := range ck {
				ty := unnamed[1+i]
				if ty.String() != c.Type || ty.Reversed != (c.Order == "desc") {
					t.Errorf("%s: clustering %s: %q (reversed %v), want %q %s", f, c.Name, ty.String(), ty.Reversed, c.Type, c.Order)
				}
			}
		})
	}
	// A floor on the whole corpus: it holds only when every SSTable ran.
	if cases.All() && (len(seen) < 40 || named < 100) {
		t.Errorf("scan found only %d distinct strings and %d named columns", len(seen), named)
	}
	t.Logf("%d files, %d distinct type strings, %d named columns checked", len(files), len(seen), named)
}
