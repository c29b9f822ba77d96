package commitlog

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Descriptor is what a segment's file name says: CommitLog-<version>-<id>.log
// (CommitLogDescriptor.fileName). The header repeats both, and the header
// is what the reader trusts; NewReader checks that the ids agree.
type Descriptor struct {
	Version int
	ID      int64
}

// FileName is the segment's file name, as Cassandra writes it.
func (d Descriptor) FileName() string {
	return fmt.Sprintf("CommitLog-%d-%d.log", d.Version, d.ID)
}

// ParseFileName parses a segment's file name (a base name or a path).
// Cassandra's pattern is CommitLog-(\d+)(-\d+)?\.log; a name without the id
// (before 1.2.5) is refused, as Cassandra refuses it, and so are CDC
// index files (CommitLog-<v>-<id>_cdc.idx) and anything else.
func ParseFileName(name string) (Descriptor, error) {
	base := filepath.Base(name)
	rest, ok := strings.CutPrefix(base, "CommitLog-")
	if ok {
		rest, ok = strings.CutSuffix(rest, ".log")
	}
	var v, id string
	if ok {
		v, id, ok = strings.Cut(rest, "-")
	}
	if !ok || !digits(v) || !digits(id) {
		return Descriptor{}, fmt.Errorf("parse commit log file name %q: want CommitLog-<version>-<id>.log", base)
	}
	version, err1 := strconv.Atoi(v)
	segment, err2 := strconv.ParseInt(id, 10, 64)
	if err1 != nil || err2 != nil {
		return Descriptor{}, fmt.Errorf("parse commit log file name %q: number out of range", base)
	}
	return Descriptor{Version: version, ID: segment}, nil
}

func digits(s string) bool {
	if s == "" || len(s) > 19 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// SegmentFile is one segment found in a commit log directory.
type SegmentFile struct {
	Descriptor
	Path string
}

// ListDir lists the segments of a commit log directory in id order, the
// order Cassandra replays them in (CommitLogSegmentFileComparator). Files
// whose names are not segment names (CDC indexes, temporary files) and
// directories are left out. NB: on a running node the newest segment is
// usually one Cassandra created ahead, header only (it reads as no
// entries), and the one it writes is the second newest: read the last two
// with Options.Live.
func ListDir(dir string) ([]SegmentFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list commit log directory: %w", err)
	}
	var out []SegmentFile
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		d, err := ParseFileName(e.Name())
		if err != nil {
			continue
		}
		out = append(out, SegmentFile{Descriptor: d, Path: filepath.Join(dir, e.Name())})
	}
	slices.SortFunc(out, func(a, b SegmentFile) int {
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out, nil
}
