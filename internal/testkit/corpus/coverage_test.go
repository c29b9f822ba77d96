package corpus

import (
	"flag"
	"path/filepath"
	"testing"
)

var corpusRoot = flag.String("corpus", "", "corpus root to check (default: the committed testdata/corpus)")

func root(t *testing.T) string {
	if *corpusRoot != "" {
		return *corpusRoot
	}
	return Root()
}

// TestCoverage checks the coverage list against every mode of a corpus
// (the committed one, or the regenerated one given with -corpus).
func TestCoverage(t *testing.T) {
	for _, mode := range Modes {
		t.Run(mode, func(t *testing.T) {
			for _, err := range Check(filepath.Join(root(t), mode)) {
				t.Error(err)
			}
		})
	}
}

// TestCoverageDetectsMissingFeature proves the checks can fail: with the
// deletions and Zstd tables taken away, their features must be reported.
func TestCoverageDetectsMissingFeature(t *testing.T) {
	c, err := Load(filepath.Join(root(t), "oa"))
	if err != nil {
		t.Fatal(err)
	}
	delete(c.Tables, "deletions")
	delete(c.Tables, "comp_zstd")
	delete(c.Tables, "timestamps") // also holds a partition deletion
	failed := map[string]bool{}
	for _, f := range Features() {
		if !f.Check(c) {
			failed[f.Name] = true
		}
	}
	for _, want := range []string{"partition deletion", "range tombstone boundary", "compression Zstd"} {
		if !failed[want] {
			t.Errorf("feature %q still reported present without its table", want)
		}
	}
	if failed["compression LZ4"] {
		t.Errorf("feature compression LZ4 reported missing though comp_lz4 is present")
	}
}
