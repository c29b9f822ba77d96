package sstable_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

// copySSTable copies every component of the SSTable prefix in dir to a
// fresh temporary directory, so a test may damage the copy.
func copySSTable(t *testing.T, dir, prefix string, components []string) string {
	t.Helper()
	out := t.TempDir()
	files := make([]string, len(components))
	for i, c := range components {
		files[i] = filepath.Join(dir, prefix+"-"+c)
	}
	corpus.CopyFiles(t, out, files...)
	return out
}

// copyCorpusSSTable copies every component of a corpus SSTable to a
// fresh temporary directory (copySSTable) and returns the directory.
func copyCorpusSSTable(t *testing.T, tbl *corpus.CorpusTable, st corpus.SSTableFiles) string {
	t.Helper()
	return copySSTable(t, tbl.Dir, st.Prefix, slices.Sorted(maps.Keys(st.Components)))
}

// eachComponent calls fn with each component of st that names lists, in
// name order, and its bytes.
func eachComponent(t *testing.T, tbl *corpus.CorpusTable, st corpus.SSTableFiles, names []string, fn func(comp string, src []byte)) {
	t.Helper()
	for _, comp := range slices.Sorted(maps.Keys(st.Components)) {
		if !slices.Contains(names, comp) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(tbl.Dir, st.Prefix+"-"+comp))
		if err != nil {
			t.Fatal(err)
		}
		fn(comp, src)
	}
}

// damaged returns a damaged copy of src and what was done to it: cut at a
// random length when truncate is set, else one random byte flipped to
// another value.
func damaged(rng *rand.Rand, src []byte, truncate bool) ([]byte, string) {
	bad := append([]byte{}, src...)
	if truncate {
		n := rng.IntN(len(bad))
		return bad[:n], fmt.Sprintf("truncated to %d", n)
	}
	i := rng.IntN(len(bad))
	bad[i] ^= byte(1 + rng.IntN(255))
	return bad, fmt.Sprintf("byte %d flipped", i)
}

// eachCorpusTable runs fn for every table of every corpus mode
// (corpus.Cases.Tables). The returned cases tell whether -run left some
// out.
func eachCorpusTable(t *testing.T, fn func(t *testing.T, mode string, tbl *corpus.CorpusTable)) *corpus.Cases {
	t.Helper()
	cases := corpus.NewCases(t)
	cases.Tables(corpusRoot(), fn)
	return cases
}

// corpusRoot is the committed corpus, or the one SSTF_CORPUS names (make
// test points it at the regenerated full corpus).
func corpusRoot() string { return corpus.Root() }
