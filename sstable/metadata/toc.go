package metadata

import (
	"bytes"
	"fmt"

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
// component (see componentName) and a TOC that lists no Data.db or no
// Statistics.db, both of which every reader needs, are corruption of
// file (the TOC's path as the caller names it), at the bad line's
// offset. NB: the error shows no more of a bad line than its first bad
// byte: the file may be anything (a link to a secret, a copy of another
// file), and the error may reach a client.
func ParseTOC(b []byte, file string) ([]string, error) {
	var comps []string
	seen := map[string]bool{}
	for n, off := 1, 0; off < len(b); n++ {
		line := b[off:]
		next := len(b)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > 0 {
			if why := componentName(line); why != "" {
				return nil, base.Corruptf(file, "TOC.txt", int64(off), "line %d (%d bytes, not shown) is not a component name: %s", n, len(line), why)
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

// maxComponentName bounds a component name: with the SSTable's prefix
// it is a file name, which Linux caps at 255 bytes.
const maxComponentName = 200

// componentName says why a TOC line cannot be the suffix of a file name
// in the SSTable's own directory, "" if it can: letters, digits and
// "._+-", not "." or "..", at most maxComponentName bytes. Cassandra's
// components (SAI's SAI+aa+..., SASI's SI_...) are all of this form.
func componentName(b []byte) string {
	if string(b) == "." || string(b) == ".." {
		return `"." and ".." name directories`
	}
	if len(b) > maxComponentName {
		return fmt.Sprintf("longer than %d bytes", maxComponentName)
	}
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-'
		if !ok {
			return fmt.Sprintf("byte %#02x at column %d", c, i+1)
		}
	}
	return ""
}
