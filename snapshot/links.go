package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// errVanished marks an SSTable file that disappeared between listing and
// linking (a compaction finished and deleted it): list again and retry.
var errVanished = errors.New("sstable file vanished")

// linkSSTables hard-links the components of the SSTables (comps, as
// checkSSTables found them) from the live table directory into dir. An
// SSTable is linked whole or the call fails: a component gone since the
// check was deleted under us (errVanished: list again). Each link is
// checked to be a regular file, since the live name may have been
// replaced since the check: link(2) links a symbolic link itself, which
// opening the link would follow.
func linkSSTables(liveDir, dir string, ssts []SSTable, comps [][]string) error {
	for i, st := range ssts {
		for _, c := range comps[i] {
			name := st.Prefix + "-" + c
			src, dst := filepath.Join(liveDir, name), filepath.Join(dir, name)
			err := os.Link(src, dst)
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("link %s into snapshot: %w: %w", src, errVanished, err)
			}
			if err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("link %s into snapshot: %w", src, err)
			}
			fi, err := os.Lstat(dst)
			if err != nil {
				return fmt.Errorf("link %s into snapshot: %w", src, err)
			}
			if !fi.Mode().IsRegular() {
				return fmt.Errorf("link %s into snapshot: %w: it is no longer a regular file", src, errVanished)
			}
		}
	}
	return nil
}
