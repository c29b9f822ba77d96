package sstable_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

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
			n := 0
			for s.NextUnfiltered() {
				n++
			}
			out += fmt.Sprintf("%x:%d ", s.Partition().Key, n)
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
	rng := rand.New(rand.NewPCG(13, 17))
	tries, misses := 0, map[string]int{}
	for mode, c := range corpusModes(t) {
		for _, name := range []string{"many", "wide", "clustered"} {
			tbl := c.Tables[name]
			st := tbl.SSTables[0]
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
			for comp := range st.Components {
				switch comp {
				case "Summary.db", "Index.db", "Filter.db", "Partitions.db", "Rows.db":
				default:
					continue
				}
				src, _ := os.ReadFile(filepath.Join(tbl.Dir, st.Prefix+"-"+comp))
				if len(src) == 0 {
					continue
				}
				for trial := range 15 {
					dir := t.TempDir()
					for c := range st.Components {
						b, _ := os.ReadFile(filepath.Join(tbl.Dir, st.Prefix+"-"+c))
						os.WriteFile(filepath.Join(dir, st.Prefix+"-"+c), b, 0o644)
					}
					bad := append([]byte{}, src...)
					what := ""
					if trial%4 == 3 {
						n := rng.IntN(len(bad))
						bad, what = bad[:n], fmt.Sprintf("truncated to %d", n)
					} else {
						i := rng.IntN(len(bad))
						bad[i] ^= byte(1 + rng.IntN(255))
						what = fmt.Sprintf("byte %d flipped", i)
					}
					os.WriteFile(filepath.Join(dir, st.Prefix+"-"+comp), bad, 0o644)
					got, err := accessOutcome(filepath.Join(dir, st.Prefix+"-Data.db"), keys, ranges)
					tries++
					switch {
					case err != nil && !errors.Is(err, sstable.ErrCorruption):
						t.Errorf("%s/%s %s %s: not a corruption error: %v", mode, name, comp, what, err)
					case err != nil || got == want:
					case comp == "Filter.db" || comp == "Partitions.db":
						if extra := subsetMissing(got, want); extra != "" {
							t.Errorf("%s/%s %s %s: returned data the original does not have: %s", mode, name, comp, what, extra)
						}
						misses[comp]++
						// What reads cannot see, VerifyIndexes must.
						if err := verify(filepath.Join(dir, st.Prefix+"-Data.db")); !errors.Is(err, sstable.ErrCorruption) {
							t.Errorf("%s/%s %s %s: a read missed keys but VerifyIndexes says %v", mode, name, comp, what, err)
						}
					default:
						t.Errorf("%s/%s %s %s: read succeeded with different content", mode, name, comp, what)
					}
				}
			}
		}
	}
	t.Logf("%d damaged copies; silent misses (no checksum in the format): %v", tries, misses)
	if tries < 300 {
		t.Errorf("only %d damaged copies tried", tries)
	}
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
