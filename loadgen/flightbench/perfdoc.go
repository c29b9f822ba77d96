package flightbench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// The lines that delimit Lane A's record in docs/PERFORMANCE.md. Only
// the text between them is rewritten, so the rest of the file, edited by
// hand, stays byte for byte as it was.
const (
	BeginMarker    = "<!-- lane-a:begin -->"
	EndMarker      = "<!-- lane-a:end -->"
	sectionHeading = "## Lane A (issue #7)"
)

// ReplaceSection returns doc with the lines between the marker lines
// replaced by section. Without markers it appends a "## Lane A (issue #7)"
// section holding them. Markers out of order, repeated, or only one of
// the two are an error: guessing would lose hand-written text.
func ReplaceSection(doc, section []byte) ([]byte, error) {
	if len(section) > 0 && section[len(section)-1] != '\n' {
		section = append(section[:len(section):len(section)], '\n')
	}
	begins, ends := markerLines(doc, BeginMarker), markerLines(doc, EndMarker)
	switch {
	case len(begins) == 0 && len(ends) == 0:
		var out bytes.Buffer
		out.Write(doc)
		if len(doc) > 0 && doc[len(doc)-1] != '\n' {
			out.WriteByte('\n')
		}
		if len(doc) > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "%s\n\n%s\n", sectionHeading, BeginMarker)
		out.Write(section)
		fmt.Fprintf(&out, "%s\n", EndMarker)
		return out.Bytes(), nil
	case len(begins) != 1 || len(ends) != 1:
		return nil, fmt.Errorf("replace lane a section: want one %s line and one %s line, found %d and %d",
			BeginMarker, EndMarker, len(begins), len(ends))
	case ends[0].start < begins[0].end:
		return nil, fmt.Errorf("replace lane a section: %s comes before %s", EndMarker, BeginMarker)
	}
	// The end marker's line follows the begin marker's, so the begin
	// line ends in a newline and doc[:b.end] keeps it.
	b, e := begins[0], ends[0]
	out := make([]byte, 0, len(doc)+len(section))
	out = append(out, doc[:b.end]...)
	out = append(out, section...)
	out = append(out, doc[e.start:]...)
	return out, nil
}

// lineSpan is one line's bytes [start, end), end past its newline.
type lineSpan struct{ start, end int }

// markerLines finds the lines that hold exactly marker (trailing blanks
// and a CR allowed).
func markerLines(doc []byte, marker string) []lineSpan {
	var out []lineSpan
	for start := 0; start < len(doc); {
		end := bytes.IndexByte(doc[start:], '\n')
		if end < 0 {
			end = len(doc)
		} else {
			end += start + 1
		}
		if string(bytes.TrimRight(doc[start:end], " \t\r\n")) == marker {
			out = append(out, lineSpan{start, end})
		}
		start = end
	}
	return out
}

// UpdateDoc rewrites path's Lane A section with section, through a
// temporary file renamed over it, so a failed write leaves it whole.
func UpdateDoc(path string, section []byte) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	out, err := ReplaceSection(doc, section)
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".lane-a-*")
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a failure; renamed away otherwise
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	return nil
}
