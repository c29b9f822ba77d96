package cassandratest

import (
	"fmt"
	"slices"
	"strings"
)

// Mode selects which SSTable format the node writes. It is a node-wide
// setting, so each mode needs its own node (and its own data directory:
// storage_compatibility_mode cannot be lowered once data was written).
type Mode string

const (
	// ModeNB keeps 4.x compatibility: BIG format, version nb (or nc).
	ModeNB Mode = "nb"
	// ModeOA is 5.0's own BIG format, version oa.
	ModeOA Mode = "oa"
	// ModeDA is 5.0's trie-indexed BTI format, version da.
	ModeDA Mode = "da"
)

// modeSpec is what one mode means: the SSTables a node in it writes and
// the cassandra.yaml lines that make it write them.
type modeSpec struct {
	mode Mode
	// format is the SSTable format the node writes (metadata.Descriptor's
	// Format: big or bti).
	format string
	// versions are the format versions it may write; metadata.Versions
	// lists each under format (TestModeVersionsAreRead).
	versions []string
	// yaml selects the format in cassandra.yaml.
	yaml string
}

// modeSpecs is the one list of the harness's modes, in the order the
// corpus is generated (oldest format first). Everything else that lists
// modes derives from it: Modes, ParseMode, the node's cassandra.yaml,
// corpus.Modes and the corpus's version check, corpusgen's default
// -modes, diskdamage's victim SSTable, and cassandra-harness's -mode and
// its modes verb. The Makefile and the Trino suite, which cannot import
// Go, name this file beside their lists, and TestModeListsAgree fails
// when they drift from it.
//
// To add a mode (a format version Cassandra writes under settings of
// its own): add it here, make sure metadata.Versions holds its versions
// (sstable/metadata/version.go says what else a new version needs), add it to
// TestCluster.MODES in trino/src/test/java/io/sstableflight/trino/it/
// TestCluster.java, and regenerate the corpus (make corpus), which
// writes testdata/corpus/<mode>.
var modeSpecs = []modeSpec{
	{ModeNB, "big", []string{"nb", "nc"}, "storage_compatibility_mode: CASSANDRA_4\n"},
	{ModeOA, "big", []string{"oa"}, "storage_compatibility_mode: NONE\n"},
	{ModeDA, "bti", []string{"da"}, "storage_compatibility_mode: NONE\nsstable:\n  selected_format: bti\n"},
}

// Modes lists every mode in the order the corpus is generated.
var Modes = func() []Mode {
	ms := make([]Mode, len(modeSpecs))
	for i, s := range modeSpecs {
		ms[i] = s.mode
	}
	return ms
}()

// ModeNames are the names of Modes, in order: "nb", "oa", "da".
func ModeNames() []string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return names
}

// ParseMode accepts the name of one of Modes.
func ParseMode(s string) (Mode, error) {
	if slices.Contains(Modes, Mode(s)) {
		return Mode(s), nil
	}
	return "", fmt.Errorf("parse storage mode %q: want one of %s", s, strings.Join(ModeNames(), ", "))
}

func (m Mode) spec() (modeSpec, bool) {
	i := slices.IndexFunc(modeSpecs, func(s modeSpec) bool { return s.mode == m })
	if i < 0 {
		return modeSpec{}, false
	}
	return modeSpecs[i], true
}

// Format is the SSTable format a node in mode m writes: "big" or "bti"
// (metadata.Descriptor's Format); "" for an unknown mode.
func (m Mode) Format() string {
	s, _ := m.spec()
	return s.format
}

// Versions are the SSTable format versions a node in mode m may write,
// the mode's own name first (the version of the committed corpus); nil
// for an unknown mode.
func (m Mode) Versions() []string {
	s, _ := m.spec()
	return slices.Clone(s.versions)
}

// storageYAML is the cassandra.yaml of mode m's format.
func (m Mode) storageYAML() (string, error) {
	s, ok := m.spec()
	if !ok {
		return "", fmt.Errorf("unknown mode %q", m)
	}
	return s.yaml, nil
}
