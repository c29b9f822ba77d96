package corpus

import (
	"path/filepath"
	"testing"
)

func TestSSTableCase(t *testing.T) {
	for in, want := range map[string]string{
		"../testdata/corpus/oa/corpus/wide-4b6210e0ece511f19bc11f76f4dfd68a/oa-1-big-Data.db":  "oa/wide/oa-1-big",
		"corpus/da/corpus/comp_lz4_4k-4bc93720ece511f19bc11f76f4dfd68a/da-2-bti-Partitions.db": "da/comp_lz4_4k/da-2-bti",
		"corpus/nb/corpus/many-4b6d0d60ece511f19bc11f76f4dfd68a/expected.json":                 "nb/many/expected.json",
	} {
		t.Run(want, func(t *testing.T) {
			if got := SSTableCase(filepath.FromSlash(in)); got != want {
				t.Errorf("SSTableCase(%s) = %s, want %s", in, got, want)
			}
		})
	}
}

func TestSortedAndCases(t *testing.T) {
	c, err := Load(filepath.Join(root(t), "oa"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	cases := NewCases(t)
	for _, tbl := range c.Sorted() {
		cases.Run("oa/"+tbl.Name, func(t *testing.T) { names = append(names, tbl.Name) })
	}
	if cases.Ran() != len(names) || cases.All() != (len(names) == len(c.Tables)) {
		t.Fatalf("ran %d cases of %d tables; counted %d, all %v", len(names), len(c.Tables), cases.Ran(), cases.All())
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("tables out of order: %v", names)
		}
	}
}
