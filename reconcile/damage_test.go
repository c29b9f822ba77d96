package reconcile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestDamagedDataIsAnError: a merge over an SSTable whose Data.db has a
// flipped byte, or is cut short, ends with an error; it never returns
// fewer or other rows as if it had succeeded, and never panics. Tables:
// many (one SSTable of one-row partitions: Next's own partition turns),
// wide (two SSTables: the merge of several) and comp_none (uncompressed,
// checked by CRC.db). The error is a corruption error naming the file.
// With SkipCRC a flipped byte reaches the decoder, which must not panic
// either.
func TestDamagedDataIsAnError(t *testing.T) {
	c, err := corpus.Load(filepath.Join(corpusRoot(), "oa"))
	if err != nil {
		t.Fatal(err)
	}
	// decoded and undetected count the SkipCRC merges the decoder failed
	// and those it read to the end.
	damaged, decoded, undetected := 0, 0, 0
	cases := corpus.NewCases(t)
	for _, tbl := range c.Sorted() {
		stride := map[string]int{"many": 3, "wide": 3, "comp_none": 13}[tbl.Name]
		if stride == 0 {
			continue
		}
		cases.Run("oa/"+tbl.Name, func(t *testing.T) {
			rs, table := reconciletest.OpenTable(t, tbl)
			now := tbl.Expected.ReadAt
			want := collect(t, func() (*reconcile.Merger, error) {
				return reconcile.New(table, rs, reconcile.Options{Now: now})
			})
			if len(want) == 0 {
				t.Fatalf("%s: no rows to lose", tbl.Name)
			}
			// The first SSTable is damaged; the others are read as they are.
			dir := t.TempDir()
			data := copySSTable(t, tbl.Dir, tbl.SSTables[0].Prefix, dir)
			orig, err := os.ReadFile(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, cut := range []bool{false, true} {
				for off := 0; off < len(orig); off += stride {
					b := orig
					if cut {
						b = orig[:off]
					} else {
						b = append([]byte(nil), orig...)
						b[off] ^= 0x5a
					}
					if err := os.WriteFile(data, b, 0o644); err != nil {
						t.Fatal(err)
					}
					what := "flipped byte"
					if cut {
						what = "cut"
					}
					rows, err := mergeDamaged(table, data, rs[1:], now, false)
					switch {
					case err == nil:
						t.Fatalf("%s, %s at offset %d: merge succeeded with %d rows (undamaged %d); want an error", tbl.Name, what, off, rows, len(want))
					case !errors.Is(err, sstable.ErrCorruption) || !strings.Contains(err.Error(), dir):
						t.Fatalf("%s, %s at offset %d: %v; want a corruption error naming the file", tbl.Name, what, off, err)
					}
					if !cut {
						// Past the checksums the decoder meets the damage. It
						// cannot tell every flipped value byte from data, but
						// whatever it does catch must be a corruption error
						// naming the file, never a panic or another error.
						switch _, err := mergeDamaged(table, data, rs[1:], now, true); {
						case err == nil:
							undetected++
						case !errors.Is(err, sstable.ErrCorruption) || !strings.Contains(err.Error(), dir):
							t.Fatalf("%s, flipped byte at offset %d, SkipCRC: %v; want a corruption error naming the file", tbl.Name, off, err)
						default:
							decoded++
						}
					}
					damaged++
				}
			}
		})
	}
	t.Logf("%d damaged copies; with SkipCRC the decoder caught %d flipped bytes, %d read through", damaged, decoded, undetected)
	// Floors on the whole list: they hold only when every table ran.
	if !cases.All() {
		return
	}
	if damaged < 10000 {
		t.Fatalf("only %d damaged copies merged", damaged)
	}
	if decoded == 0 {
		t.Errorf("with SkipCRC the decoder caught none of %d flipped bytes", decoded+undetected)
	}
}

// mergeDamaged opens the damaged Data.db, merges it with the others and
// counts the rows; an error opening it counts as the merge's.
func mergeDamaged(table *reconcile.Table, data string, others []*sstable.Reader, now int64, skipCRC bool) (int, error) {
	r, err := sstable.Open(data, sstable.Options{SkipCRC: skipCRC})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	m, err := reconcile.New(table, append([]*sstable.Reader{r}, others...), reconcile.Options{Now: now})
	if err != nil {
		return 0, err
	}
	defer m.Release()
	n := 0
	for m.Next() {
		n++
	}
	return n, m.Err()
}

// copySSTable copies the components of one SSTable into dir and returns
// the copy's Data.db.
func copySSTable(t *testing.T, from, prefix, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(from, prefix+"-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no components of %s in %s", prefix, from)
	}
	corpus.CopyFiles(t, dir, files...)
	return filepath.Join(dir, prefix+"-Data.db")
}
