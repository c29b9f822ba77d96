package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errVanished marks an SSTable file that disappeared between listing and
// linking (a compaction finished and deleted it): list again and retry.
var errVanished = errors.New("sstable file vanished")

// linkSSTables hard-links every component of the SSTables, as their TOCs
// list them, from the live table directory into dir. An SSTable is linked
// whole or the call fails: a missing component of a listed SSTable means
// it was deleted under us (errVanished, retry) or is incomplete on disk.
func linkSSTables(liveDir, dir string, ssts []SSTable) error {
	for _, st := range ssts {
		comps, err := tocComponents(liveDir, st.Prefix)
		if err != nil {
			return err
		}
		for _, c := range comps {
			name := st.Prefix + "-" + c
			err := os.Link(filepath.Join(liveDir, name), filepath.Join(dir, name))
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("link %s into snapshot: %w: %w", filepath.Join(liveDir, name), errVanished, err)
			}
			if err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("link %s into snapshot: %w", filepath.Join(liveDir, name), err)
			}
		}
	}
	return nil
}

// tocComponents reads an SSTable's TOC.txt: the components it must have.
// TOC.txt itself is always included (older writers omit it from the list).
func tocComponents(dir, prefix string) ([]string, error) {
	path := filepath.Join(dir, prefix+"-TOC.txt")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w: %w", path, errVanished, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read TOC: %w", err)
	}
	comps := strings.Fields(string(b))
	hasTOC, hasData := false, false
	for _, c := range comps {
		if strings.ContainsAny(c, `/\`) || c == ".." {
			return nil, fmt.Errorf("read %s: component %q is not a file name", path, c)
		}
		hasTOC = hasTOC || c == "TOC.txt"
		hasData = hasData || c == "Data.db"
	}
	if !hasData {
		return nil, fmt.Errorf("read %s: lists no Data.db", path)
	}
	if !hasTOC {
		comps = append(comps, "TOC.txt")
	}
	return comps, nil
}
