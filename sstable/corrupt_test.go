package sstable_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/dump"
)

// outcome is everything a reader returns for an SSTable: the full dump
// (every partition, row and cell) or the error that stopped it.
func outcome(path string) (string, error) {
	r, err := sstable.Open(path, sstable.Options{})
	if err != nil {
		return "", err
	}
	defer r.Close()
	ps, err := dump.Partitions(r, dump.Options{})
	if err != nil {
		return "", err
	}
	return fmt.Sprint(ps), nil
}

// TestCorruptionIsDetected flips and truncates bytes across the components
// a scan reads (Data.db, CompressionInfo.db, CRC.db, Statistics.db,
// TOC.txt) of SSTables in every mode and compression: each damaged copy
// must either fail with a corruption error naming the damaged file, or
// (damage to bytes the reader does not use) give exactly the original
// result. Never a panic, never fewer or different rows reported as
// success.
func TestCorruptionIsDetected(t *testing.T) {
	corpora := corpus.LoadEach(t)
	cases := corpus.NewCases(t)
	tries := 0
	for _, mode := range corpus.Modes {
		for _, name := range []string{"deletions", "comp_none", "comp_zstd", "comp_deflate", "comp_snappy", "collections"} {
			cases.Run(mode+"/"+name, func(t *testing.T) {
				rng := corpus.Rand(t, 7)
				tbl := corpora[mode].Tables[name]
				st := tbl.SSTables[0]
				orig := filepath.Join(tbl.Dir, st.Prefix+"-Data.db")
				want, err := outcome(orig)
				if err != nil {
					t.Fatal(err)
				}
				scanned := []string{"Data.db", "CompressionInfo.db", "CRC.db", "Statistics.db", "TOC.txt"}
				eachComponent(t, tbl, st, scanned, func(comp string, src []byte) {
					for trial := range 13 {
						dir := copyCorpusSSTable(t, tbl, st)
						var bad []byte
						var what string
						if trial == 12 {
							// Cut to nothing: a Data.db with no chunk left
							// once read as an SSTable without partitions.
							bad, what = nil, "truncated to 0"
						} else {
							bad, what = damaged(rng, src, trial%3 == 2 && len(src) > 1)
						}
						damaged := filepath.Join(dir, st.Prefix+"-"+comp)
						if err := os.WriteFile(damaged, bad, 0o644); err != nil {
							t.Fatal(err)
						}
						got, err := outcome(filepath.Join(dir, st.Prefix+"-Data.db"))
						tries++
						switch {
						case err == nil && got == want:
							// Damage to bytes the reader does not use.
						case err == nil:
							t.Errorf("%s %s: read succeeded with different content", comp, what)
						case !errors.Is(err, sstable.ErrCorruption) && !errors.Is(err, os.ErrNotExist):
							t.Errorf("%s %s: error is not a corruption error: %v", comp, what, err)
						case !strings.Contains(err.Error(), dir):
							t.Errorf("%s %s: error does not name the file: %v", comp, what, err)
						}
					}
				})
			})
		}
	}
	// A floor on the whole list: it holds only when every table ran.
	if cases.All() && tries < 500 {
		t.Errorf("only %d damaged copies tried", tries)
	}
}
