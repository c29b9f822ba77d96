package snapshot

import "testing"

// TestPickDir: of a re-created table's directories, the one its current
// id names; without a known id, or one naming none of them, the last
// one holding SSTables, else the last.
func TestPickDir(t *testing.T) {
	old := TableDir{ID: "old", Path: "ks/t-old", SSTables: []SSTable{{}}}
	cur := TableDir{ID: "cur", Path: "ks/t-cur"}
	for _, c := range []struct {
		name  string
		dirs  []TableDir
		id    string
		known bool
		want  string
	}{
		{"one directory", []TableDir{cur}, "other", true, "ks/t-cur"},
		{"the id's", []TableDir{old, cur}, "cur", true, "ks/t-cur"},
		{"no id known: the one with SSTables", []TableDir{old, cur}, "", false, "ks/t-old"},
		{"an id naming none: the one with SSTables", []TableDir{old, cur}, "gone", true, "ks/t-old"},
		{"none with SSTables: the last", []TableDir{{Path: "a"}, {Path: "b"}}, "", false, "b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PickDir(c.dirs, c.id, c.known); got.Path != c.want {
				t.Fatalf("PickDir: %s, want %s", got.Path, c.want)
			}
		})
	}
}
