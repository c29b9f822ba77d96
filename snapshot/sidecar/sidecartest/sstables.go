package sidecartest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/safefile"
)

// Cassandra reads an SSTable's TOC once, as it opens the SSTable, and its
// snapshots link the components it learnt then that are still on disk,
// reading none of them. The fake does the same: it learns the SSTables of
// its data directories as it starts, and at each snapshot those that
// appeared since (a TOC is written last, so an SSTable still being
// written is not one yet), and never reads a learnt TOC again. A TOC that
// cannot be read as a small regular file (a FIFO, a directory, a link, a
// huge file) makes the fake take the SSTable's files instead, as
// Cassandra finds the components of an SSTable whose TOC is missing. So a
// component damaged under a running node is linked as Cassandra links it,
// and nothing in a data directory makes the fake hang or read without
// bound.

// maxTOCBytes is the most of a TOC the fake reads: a dozen names.
const maxTOCBytes = 64 << 10

// sstableSet is what the fake learnt of its data directories' SSTables:
// each one's components, by table directory and prefix ("oa-3-big-").
type sstableSet map[string]map[string][]string

// learnAll learns the SSTables of every table directory of dataDirs.
func (ss sstableSet) learnAll(dataDirs []string) {
	for _, dd := range dataDirs {
		tables, _ := filepath.Glob(filepath.Join(dd, "*", "*"))
		for _, td := range tables {
			if fi, err := os.Lstat(td); err == nil && fi.IsDir() {
				ss.learn(td)
			}
		}
	}
}

// learn adds the SSTables of tableDir that have a TOC and are not known
// yet, and returns the directory's SSTables, by prefix.
func (ss sstableSet) learn(tableDir string) map[string][]string {
	known := ss[tableDir]
	if known == nil {
		known = map[string][]string{}
		ss[tableDir] = known
	}
	entries, err := os.ReadDir(tableDir)
	if err != nil {
		return known
	}
	for _, e := range entries {
		prefix, ok := strings.CutSuffix(e.Name(), "TOC.txt")
		if !ok || prefix == "" || known[prefix] != nil {
			continue
		}
		b, err := safefile.ReadFile(filepath.Join(tableDir, e.Name()), maxTOCBytes)
		var comps []string
		if err == nil {
			comps = strings.Fields(string(b))
		} else {
			for _, f := range entries {
				if c, ok := strings.CutPrefix(f.Name(), prefix); ok {
					comps = append(comps, c)
				}
			}
		}
		// The TOC usually lists itself; it is a component either way.
		known[prefix] = append(comps, "TOC.txt")
	}
	return known
}

// linkSSTables hard-links the components of tableDir's SSTables that are
// on disk into snapDir and returns the names of their Data.db files. As
// Cassandra's link(2), os.Link links a symbolic link itself, and fails on
// a directory, which fails the snapshot.
func linkSSTables(tableDir, snapDir string, sstables map[string][]string) ([]string, error) {
	var dataFiles []string
	for prefix, comps := range sstables {
		linked := map[string]bool{}
		for _, c := range comps {
			name := prefix + c
			if linked[c] || strings.ContainsAny(c, `/\`) {
				continue
			}
			linked[c] = true
			if _, err := os.Lstat(filepath.Join(tableDir, name)); err != nil {
				continue // gone from disk: Cassandra skips it too
			}
			if err := os.Link(filepath.Join(tableDir, name), filepath.Join(snapDir, name)); err != nil {
				return nil, fmt.Errorf("link %s into snapshot: %w", name, err)
			}
			if c == "Data.db" {
				dataFiles = append(dataFiles, name)
			}
		}
	}
	sort.Strings(dataFiles)
	return dataFiles, nil
}
