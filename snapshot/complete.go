package snapshot

// Whether a listed SSTable is whole, before an epoch takes it.
//
// Listing (layout.go) groups a table directory's files by SSTable and
// hides those the txn logs make temporary. What is left must be whole: a
// TOC.txt that parses, and every component it lists present as a regular
// file. An SSTable that is not is never left out of an epoch, which would
// answer with older values or fewer rows as if nothing were wrong: the cut
// fails with an error naming the file relative to the data directory.
//
// Cassandra itself never leaves such an SSTable in sight for long. A flush
// or compaction writes every component, TOC.txt last, before its txn log
// commits; after the commit it deletes the obsoleted SSTables' files,
// Data.db first (the format's delete), and the log last, once all of them
// are gone (LogTransaction's tidiers). While the log is there, the listing
// hides the obsoleted SSTable; once it is gone, so are the files. The only
// window is a listing that read the files just before Cassandra deleted
// them and the logs just after: listing again settles it, so the cut
// reports a problem only when it stays the same over a few listings
// (acquire.go).

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// ErrMissingComponent reports a component an SSTable's TOC.txt lists (or
// the TOC.txt itself) that is not in the SSTable's directory, while no txn
// log makes the SSTable obsolete: the SSTable cannot be read, and leaving
// it out would serve older values.
var ErrMissingComponent = errors.New("sstable component missing")

// ErrNotRegular reports an SSTable component that is a directory, a
// symbolic link, a device, a pipe or a socket. The server reads regular
// files only and never follows a link, which may lead out of the data
// directory.
var ErrNotRegular = errors.New("sstable component is not a regular file")

// maxTOCSize bounds what is read of a TOC.txt, as the reader does: it
// names a dozen components, so anything near this size is damage.
const maxTOCSize = sstable.DefaultMaxTOC

// relPath names a file of the table directory as the operator knows it:
// relative to the data directory, <keyspace>/<table>-<id>/<name>.
func (td TableDir) relPath(name string) string {
	return td.Keyspace + "/" + filepath.Base(td.Path) + "/" + name
}

// checkSSTables checks every listed SSTable of a local table directory
// (checkLocal) and returns each one's components.
func checkSSTables(td TableDir, ssts []SSTable) ([][]string, error) {
	comps := make([][]string, len(ssts))
	for i, st := range ssts {
		c, err := checkLocal(td, st)
		if err != nil {
			return nil, fmt.Errorf("check SSTable %s: %w", td.relPath(st.Prefix), err)
		}
		comps[i] = c
	}
	return comps, nil
}

// checkLocal checks one SSTable of a local table directory: its TOC.txt
// is a regular file and parses, and every component it lists is a
// regular file. It returns the components, TOC.txt included. Nothing is
// followed: a symbolic link is reported, never read, wherever it leads.
func checkLocal(td TableDir, st SSTable) ([]string, error) {
	toc, err := readLocalTOC(td, st)
	if err != nil {
		return nil, err
	}
	comps, err := metadata.ParseTOC(toc, td.relPath(st.Prefix+"-TOC.txt"))
	if err != nil {
		return nil, err
	}
	hasTOC := false
	for _, c := range comps {
		hasTOC = hasTOC || c == "TOC.txt"
		name := st.Prefix + "-" + c
		fi, err := os.Lstat(filepath.Join(td.Path, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s, which its TOC.txt lists (no txn log makes the SSTable obsolete)", ErrMissingComponent, td.relPath(name))
		}
		if err != nil {
			return nil, fmt.Errorf("stat component: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, notRegular(td, name, fi)
		}
	}
	if !hasTOC { // older writers leave the TOC out of its own list
		comps = append(comps, "TOC.txt")
	}
	return comps, nil
}

// readLocalTOC reads an SSTable's TOC.txt without following a link, and
// only if it is a regular file.
func readLocalTOC(td TableDir, st SSTable) ([]byte, error) {
	name := st.Prefix + "-TOC.txt"
	path := filepath.Join(td.Path, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (the SSTable has %s but no TOC.txt; no txn log makes it obsolete)",
			ErrMissingComponent, td.relPath(name), strings.Join(st.present(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("stat TOC: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(td, name, fi)
	}
	// NB: O_NOFOLLOW, because the name may have become a link since the
	// Lstat; O_NONBLOCK, lest opening a pipe put there wait forever.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read TOC: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("read TOC: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(td, name, fi)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTOCSize+1))
	if err != nil {
		return nil, fmt.Errorf("read TOC: %w", err)
	}
	if len(b) > maxTOCSize {
		return nil, &sstable.CorruptionError{File: td.relPath(name), Component: "TOC.txt", Offset: maxTOCSize,
			Err: fmt.Errorf("larger than %d bytes, which no TOC is", maxTOCSize)}
	}
	return b, nil
}

// notRegular describes a component that is not a regular file.
func notRegular(td TableDir, name string, fi fs.FileInfo) error {
	what := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeSymlink != 0:
		// NB: the target is shown only when it names a file of the same
		// directory: a path elsewhere is the server's, not the client's.
		what = "a symbolic link to a path outside the table directory, never followed"
		if to, err := os.Readlink(filepath.Join(td.Path, name)); err == nil && !strings.ContainsRune(to, '/') && to != ".." {
			what = fmt.Sprintf("a symbolic link to %s, never followed", snippet.QuoteN(to, 64))
		}
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%w: %s is %s", ErrNotRegular, td.relPath(name), what)
}

// present lists the SSTable's components the listing found, for errors.
func (st SSTable) present() []string {
	var out []string
	for c := range st.Components {
		out = append(out, c)
	}
	out = append(out, st.irregular...)
	sort.Strings(out)
	return out
}

// checkSidecar checks the SSTables of one of our Cassandra snapshots,
// listed through Sidecar: each has a TOC.txt, read through fsys, that
// parses, and the listing has every component it lists that Sidecar
// serves (*.db and TOC.txt; no reader needs the others, Digest.crc32).
// Cassandra's snapshot links the components of the SSTables it has open
// and skips the files gone from disk, so a component deleted under
// Cassandra is missing here too. A snapshot never changes: there is no
// race to wait out. Files are named as in Cassandra's data directory
// (sidecarSnapshotDir).
func checkSidecar(td TableDir, snap string, ssts []SSTable, fsys sstable.FS) error {
	dir := sidecarSnapshotDir(td, snap) + "/"
	for _, st := range ssts {
		if err := checkSidecarSSTable(td, dir, st, fsys); err != nil {
			return fmt.Errorf("check SSTable %s of %s.%s (through Sidecar): %w", st.Prefix, td.Keyspace, td.Table, err)
		}
	}
	return nil
}

func checkSidecarSSTable(td TableDir, dir string, st SSTable, fsys sstable.FS) error {
	name := st.Prefix + "-TOC.txt"
	if _, ok := st.Components["TOC.txt"]; !ok {
		return fmt.Errorf("%w: %s (the snapshot has %s but no TOC.txt)", ErrMissingComponent, dir+name, strings.Join(st.present(), ", "))
	}
	f, closer, err := fsys.Open(dir + name)
	if err != nil {
		return fmt.Errorf("read TOC: %w", err)
	}
	defer closer.Close()
	if f.Size() > maxTOCSize {
		return &sstable.CorruptionError{File: dir + name, Component: "TOC.txt", Offset: maxTOCSize,
			Err: fmt.Errorf("%d bytes, more than any TOC", f.Size())}
	}
	b := make([]byte, f.Size())
	if n, err := f.ReadAt(b, 0); n < len(b) {
		return fmt.Errorf("read TOC: %w", err)
	}
	comps, err := metadata.ParseTOC(b, dir+name)
	if err != nil {
		return err
	}
	for _, c := range comps {
		if _, ok := st.Components[c]; !ok && (strings.HasSuffix(c, ".db") || c == "TOC.txt") {
			return fmt.Errorf("%w: %s, which its TOC.txt lists", ErrMissingComponent, dir+st.Prefix+"-"+c)
		}
	}
	return nil
}
