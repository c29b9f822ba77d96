package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// EnvRoot names a corpus to test instead of the committed one; make test
// points it at the regenerated full corpus.
const EnvRoot = "SSTF_CORPUS"

// Root is the corpus tests read: the one EnvRoot names, else the
// committed testdata/corpus of this module, wherever the test runs.
func Root() string {
	if r := os.Getenv(EnvRoot); r != "" {
		return r
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "corpus")
}

// LoadEach loads every mode's corpus under Root, by mode; a corpus that
// cannot be loaded fails t.
func LoadEach(t testing.TB) map[string]*ModeCorpus {
	t.Helper()
	out := map[string]*ModeCorpus{}
	for _, mode := range Modes {
		c, err := Load(filepath.Join(Root(), mode))
		if err != nil {
			t.Fatal(err)
		}
		out[mode] = c
	}
	return out
}
