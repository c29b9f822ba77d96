package snapshot

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

// TestLayoutOfCorpus lists each committed corpus mode as a data directory:
// every corpus table is found once, its id is the one Cassandra's schema
// gives, and every SSTable has its Data.db and TOC.
func TestLayoutOfCorpus(t *testing.T) {
	for _, mode := range corpus.Modes {
		dir := filepath.Join("..", "testdata", "corpus", mode)
		tables, err := layout(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tables) != len(corpus.Tables) {
			t.Errorf("%s: %d tables, want %d", mode, len(tables), len(corpus.Tables))
		}
		for _, td := range tables {
			t.Run(mode+"/"+td.Table, func(t *testing.T) {
				schema, err := os.ReadFile(filepath.Join(td.Path, corpus.SchemaFile))
				if err != nil {
					t.Fatal(err)
				}
				m := regexp.MustCompile(`WITH ID = ([0-9a-f-]{36})`).FindSubmatch(schema)
				if m == nil || strings.ReplaceAll(string(m[1]), "-", "") != td.ID {
					t.Errorf("%s %s.%s: directory id %s, schema says %s", mode, td.Keyspace, td.Table, td.ID, m)
				}
				if len(td.SSTables) == 0 {
					t.Errorf("%s %s.%s: no SSTables", mode, td.Keyspace, td.Table)
				}
				for _, st := range td.SSTables {
					if st.Components["Data.db"] == 0 || st.Components["TOC.txt"] == 0 {
						t.Errorf("%s %s: components %v", td.Path, st.Prefix, st.Components)
					}
					if (mode == "da") != (st.Format == "bti") {
						t.Errorf("%s %s: format %s in mode %s", td.Path, st.Prefix, st.Format, mode)
					}
				}
			})
		}
	}
}

func TestLayoutErrorsNameTheDirectory(t *testing.T) {
	_, err := layout(filepath.Join(t.TempDir(), "missing"), nil)
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("want an error naming the directory, got %v", err)
	}
}

func TestLessPrefix(t *testing.T) {
	if !lessPrefix("oa-2-big", "oa-10-big") || lessPrefix("oa-10-big", "oa-2-big") {
		t.Error("generations must sort numerically")
	}
}
