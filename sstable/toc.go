package sstable

import (
	"bytes"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// TOC.txt lists an SSTable's components, one a line, each the suffix of
// a file name after the SSTable's prefix (TOCComponent.appendTOC):
//
//	CompressionInfo.db\n
//	Data.db\n
//	...
//	TOC.txt\n
//
// Cassandra writes it after every other component, before the
// transaction that adds the SSTable commits, and appends to it when a
// component is added later (an index built on an existing SSTable).

// ParseTOC parses a TOC.txt and returns the components it lists, in
// order and without repeats. Blank lines are skipped and a line may end
// in \r\n, as Java's line reader allows. A line that cannot name a
// component (a space, a path separator, a control or non-ASCII byte, "."
// or "..") and a TOC that lists no Data.db or no Statistics.db, both of
// which every reader needs, are corruption of file (the TOC's path as
// the caller names it), at the bad line's offset.
func ParseTOC(b []byte, file string) ([]string, error) {
	var comps []string
	seen := map[string]bool{}
	for off := 0; off < len(b); {
		line := b[off:]
		next := len(b)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > 0 {
			if !componentName(line) {
				return nil, base.Corruptf(file, "TOC.txt", int64(off), "line %q is not a component name", line)
			}
			if c := string(line); !seen[c] {
				seen[c] = true
				comps = append(comps, c)
			}
		}
		off = next
	}
	for _, need := range []string{"Data.db", "Statistics.db"} {
		if !seen[need] {
			return nil, base.Corruptf(file, "TOC.txt", 0, "lists no %s", need)
		}
	}
	return comps, nil
}

// componentName reports whether a TOC line can be the suffix of a file
// name in the SSTable's own directory: printable ASCII without a space
// or a path separator, and not "." or "..". Cassandra's components (SAI's
// SAI+aa+... included) are all of this form.
func componentName(b []byte) bool {
	if string(b) == "." || string(b) == ".." {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || c == '/' || c == '\\' {
			return false
		}
	}
	return true
}
