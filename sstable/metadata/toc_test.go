package metadata

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

func TestParseTOC(t *testing.T) {
	for _, tc := range []struct {
		name, toc string
		want      string // components joined by ",", or the error's text
		offset    int64  // of the corruption
	}{
		{"Cassandra's", "CompressionInfo.db\nData.db\nDigest.crc32\nFilter.db\nIndex.db\nStatistics.db\nSummary.db\nTOC.txt\n",
			"CompressionInfo.db,Data.db,Digest.crc32,Filter.db,Index.db,Statistics.db,Summary.db,TOC.txt", 0},
		{"CRLF, blank lines, no final newline, a repeat", "Data.db\r\n\r\nStatistics.db\n\nData.db",
			"Data.db,Statistics.db", 0},
		{"SAI components", "Data.db\nStatistics.db\nSAI+aa+GroupComplete.db\n", "Data.db,Statistics.db,SAI+aa+GroupComplete.db", 0},
		{"empty", "", "lists no Data.db", 0},
		{"no Statistics.db", "Data.db\nTOC.txt\n", "lists no Statistics.db", 0},
		{"control bytes", "Data.db\nStat\x00\xffistics.db\n", `line 2 (15 bytes, not shown) is not a component name: byte 0x00 at column 5`, 8},
		{"a space", "Data.db\nStatistics.db\nIndex .db\n", `line 3 (9 bytes, not shown) is not a component name: byte 0x20 at column 6`, 22},
		{"a path", "Data.db\nStatistics.db\n../../etc/passwd\n", `line 3 (16 bytes, not shown) is not a component name: byte 0x2f at column 3`, 22},
		{"dot-dot", "Data.db\n..\nStatistics.db\n", `line 2 (2 bytes, not shown) is not a component name: "." and ".." name directories`, 8},
		// A TOC.txt that is a copy of (or a hard link to) a secret: the
		// error shows none of it.
		{"a secret", "db.password=hunter2\n", `line 1 (19 bytes, not shown) is not a component name: byte 0x3d at column 12`, 0},
		{"too long", "Data.db\n" + strings.Repeat("x", 201) + "\n", `line 2 (201 bytes, not shown) is not a component name: longer than 200 bytes`, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTOC([]byte(tc.toc), "ks/t/oa-1-big-TOC.txt")
			if err != nil {
				var ce *base.CorruptionError
				if !errors.As(err, &ce) || ce.File != "ks/t/oa-1-big-TOC.txt" || ce.Component != "TOC.txt" || ce.Offset != tc.offset ||
					!strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want corruption of ks/t/oa-1-big-TOC.txt at %d: %s", err, tc.offset, tc.want)
				}
				return
			}
			if s := strings.Join(got, ","); s != tc.want {
				t.Fatalf("got %s, want %s", s, tc.want)
			}
		})
	}
}

// FuzzParseTOC: any bytes parse to components that name files of the
// SSTable's own directory, with Data.db and Statistics.db, or fail as
// corruption; never a panic.
func FuzzParseTOC(f *testing.F) {
	tocs, _ := filepath.Glob(filepath.Join(corpus.Root(), "*", "*", "*", "*-TOC.txt"))
	for _, p := range tocs[:min(len(tocs), 8)] {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		comps, err := ParseTOC(b, "TOC.txt")
		if err != nil {
			if !errors.Is(err, base.ErrCorruption) {
				t.Fatalf("error is not corruption: %v", err)
			}
			return
		}
		data, stats := false, false
		for _, c := range comps {
			if c == "" || c == "." || c == ".." || strings.ContainsAny(c, "/\\ \t\r\n\x00") {
				t.Fatalf("component %q", c)
			}
			data, stats = data || c == "Data.db", stats || c == "Statistics.db"
		}
		if !data || !stats {
			t.Fatalf("components %q lack Data.db or Statistics.db", comps)
		}
	})
}
