package sstable_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// accessOutcome reads every key of keys by point read and three token
// ranges, and renders what came back (keys and row counts), or the error.
func accessOutcome(path string, keys [][]byte, ranges [][2]int64) (string, error) {
	r, err := sstable.Open(path, sstable.Options{})
	if err != nil {
		return "", err
	}
	defer r.Close()
	out := ""
	read := func(s *sstable.Scanner) error {
		for s.NextPartition() {
			// The key aliases the scanner's buffer, which the rows reuse.
			key := fmt.Sprintf("%x", s.Partition().Key)
			n := 0
			for s.NextUnfiltered() {
				n++
			}
			out += fmt.Sprintf("%s:%d ", key, n)
		}
		out += "|"
		return s.Err()
	}
	for _, k := range keys {
		s, err := r.Get(k)
		if err != nil {
			return "", err
		}
		if err := read(s); err != nil {
			return "", err
		}
	}
	for _, rg := range ranges {
		s, err := r.ScanRange(rg[0], rg[1])
		if err != nil {
			return "", err
		}
		if err := read(s); err != nil {
			return "", err
		}
	}
	return out, nil
}

// TestIndexCorruption damages the index components (Summary.db, Index.db,
// Filter.db, Partitions.db, Rows.db) and reads through them. A damaged
// copy must fail with a corruption error or give the original result,
// except for what Cassandra's format cannot tell: Filter.db and the BTI
// trie carry no checksum, so damage there may make a key look absent.
// Those silent misses are counted; a read must never return another
// partition's data or panic, and VerifyIndexes must report each of them.
func TestIndexCorruption(t *testing.T) {
	d := damageCheck{misses: map[string]int{}}
	corpora := corpus.LoadEach(t)
	cases := corpus.NewCases(t)
	for _, mode := range corpus.Modes {
		for _, name := range []string{"many", "wide", "clustered"} {
			tbl := corpora[mode].Tables[name]
			cases.Run(mode+"/"+name, func(t *testing.T) {
				// Seeded by the case, so the damage is the same every run,
				// whether the case runs alone or with the others.
				rng := corpus.Rand(t, 13)
				d.table(t, mode, tbl, tbl.SSTables[0], func(src []byte, try func([]byte, string)) {
					for trial := range 15 {
						try(damaged(rng, src, trial%4 == 3))
					}
				})
			})
		}
	}
	t.Logf("%d damaged copies; silent misses (no checksum in the format): %v", d.tries, d.misses)
	// A floor on the whole list: it holds only when every table ran.
	if cases.All() && d.tries < 300 {
		t.Errorf("only %d damaged copies tried", d.tries)
	}
}

// TestRowIndexDamageEveryByte damages every byte of the wide table's
// index components (its partitions carry row indexes: entries in Index.db,
// Rows.db in BTI), one at a time, and truncates them at every length. A
// flipped Rows.db data position once sent a point read past the end of
// the data, which read as an absent key.
func TestRowIndexDamageEveryByte(t *testing.T) {
	d := damageCheck{misses: map[string]int{}}
	corpora := corpus.LoadEach(t)
	for _, mode := range corpus.Modes {
		tbl := corpora[mode].Tables["wide"]
		t.Run(mode+"/"+tbl.Name, func(t *testing.T) {
			for _, st := range tbl.SSTables {
				d.table(t, mode, tbl, st, func(src []byte, try func([]byte, string)) {
					for i := range src {
						for _, x := range []byte{0x01, 0x80, 0xff} {
							bad := append([]byte{}, src...)
							bad[i] ^= x
							try(bad, fmt.Sprintf("byte %d ^%#x", i, x))
						}
						try(src[:i], fmt.Sprintf("truncated to %d", i))
					}
				})
			}
		})
	}
	t.Logf("%d damaged copies; silent misses (no checksum in the format): %v", d.tries, d.misses)
}

// damageCheck reads through damaged copies of one SSTable's index
// components and judges each outcome.
type damageCheck struct {
	tries  int
	misses map[string]int
}

// table copies st's components into a fresh directory per index
// component and calls damage with that component's bytes and try, which
// writes a damaged version and checks what reads make of it.
func (d *damageCheck) table(t *testing.T, mode string, tbl *corpus.CorpusTable, st corpus.SSTableFiles, damage func(src []byte, try func(bad []byte, what string))) {
	t.Helper()
	orig := filepath.Join(tbl.Dir, st.Prefix+"-Data.db")
	r, err := sstable.Open(orig, sstable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := fullScan(t, r)
	r.Close()
	var keys [][]byte
	for _, p := range all {
		keys = append(keys, p.key)
	}
	ranges := [][2]int64{{all[len(all)/3].token, all[2*len(all)/3].token}, {all[len(all)/2].token - 1, all[len(all)/4].token}, {0, 0}}
	want, err := accessOutcome(orig, keys, ranges)
	if err != nil {
		t.Fatal(err)
	}
	indexes := []string{"Summary.db", "Index.db", "Filter.db", "Partitions.db", "Rows.db"}
	eachComponent(t, tbl, st, indexes, func(comp string, src []byte) {
		if len(src) == 0 {
			return
		}
		dir := copyCorpusSSTable(t, tbl, st)
		data := filepath.Join(dir, st.Prefix+"-Data.db")
		where := fmt.Sprintf("%s/%s %s", mode, tbl.Name, st.Prefix+"-"+comp)
		damage(src, func(bad []byte, what string) {
			os.WriteFile(filepath.Join(dir, st.Prefix+"-"+comp), bad, 0o644)
			got, err := accessOutcome(data, keys, ranges)
			d.tries++
			switch {
			case err != nil && !errors.Is(err, sstable.ErrCorruption):
				t.Errorf("%s %s: not a corruption error: %v", where, what, err)
			case err != nil || got == want:
			case comp == "Filter.db" || comp == "Partitions.db":
				if extra := subsetMissing(got, want); extra != "" {
					t.Errorf("%s %s: returned data the original does not have: %s", where, what, extra)
				}
				d.misses[comp]++
				// What reads cannot see, VerifyIndexes must.
				if err := verify(data); !errors.Is(err, sstable.ErrCorruption) {
					t.Errorf("%s %s: a read missed keys but VerifyIndexes says %v", where, what, err)
				}
			default:
				t.Errorf("%s %s: read succeeded with different content\n got %s\nwant %s", where, what, got, want)
			}
		})
	})
}

func verify(path string) error {
	r, err := sstable.Open(path, sstable.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	return r.VerifyIndexes()
}

// subsetMissing reports an entry of got that want lacks (got may only
// miss partitions, never invent or alter them).
func subsetMissing(got, want string) string {
	w := map[string]bool{}
	for _, f := range splitFields(want) {
		w[f] = true
	}
	for _, f := range splitFields(got) {
		if !w[f] {
			return f
		}
	}
	return ""
}

func splitFields(s string) []string {
	var out []string
	cur := ""
	for _, c := range s {
		if c == ' ' || c == '|' {
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			continue
		}
		cur += string(c)
	}
	return out
}
