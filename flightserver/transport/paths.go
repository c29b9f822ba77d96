package transport

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
)

// maxMessage bounds a status message sent to a client: what an error
// quotes of a file is cut at the source (internal/snippet); this bounds
// the whole, wrapping included.
const maxMessage = 4 << 10

// Scrubber rewrites the server's own paths out of the messages sent to
// clients. Errors name files as they were opened, under the data
// directory or, in Hardlink mode, under an epoch of the snapshot
// directory; a client sees them as the operator knows them, relative to
// the data directory (<keyspace>/<table>-<id>/<file>), and never an
// absolute path of the server. Each directory is matched as configured,
// made absolute, and with its links resolved, since any of them may be
// how a path was built.
type Scrubber struct {
	epochs *regexp.Regexp // <snapshot dir>/<keyspace>/<table dir>/<epoch>/
	under  *regexp.Regexp // <data dir>/
	bare   *regexp.Regexp // a path token starting with either directory
	dirs   []dirName      // longest first
}

type dirName struct{ dir, name string }

// pathChars may continue a path: a directory named in a message ends
// before anything else.
const pathChars = `[^\s"':,;()\[\]{}]`

func NewScrubber(dataDir, snapDir string) *Scrubber {
	s := &Scrubber{}
	data, snaps := spellings(dataDir), spellings(snapDir)
	if len(snaps) > 0 {
		s.epochs = regexp.MustCompile(alternation(snaps) + `/(` + pathChars + `+?)/(` + pathChars + `+?)/` + pathChars + `+?/`)
	}
	if len(data) > 0 {
		s.under = regexp.MustCompile(alternation(data) + `/`)
	}
	for _, d := range data {
		s.dirs = append(s.dirs, dirName{d, "<data dir>"})
	}
	for _, d := range snaps {
		s.dirs = append(s.dirs, dirName{d, "<snapshot dir>"})
	}
	sort.Slice(s.dirs, func(i, j int) bool { return len(s.dirs[i].dir) > len(s.dirs[j].dir) })
	if len(s.dirs) > 0 {
		all := make([]string, len(s.dirs))
		for i, d := range s.dirs {
			all[i] = d.dir
		}
		s.bare = regexp.MustCompile(alternation(all) + pathChars + `*`)
	}
	return s
}

// spellings are the ways a directory may appear in a path, longest
// first so that an alternation prefers the longest.
func spellings(dir string) []string {
	if dir == "" {
		return nil
	}
	set := map[string]bool{filepath.Clean(dir): true}
	if abs, err := filepath.Abs(dir); err == nil {
		set[abs] = true
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			set[real] = true
		}
	}
	var out []string
	for d := range set {
		if d != "/" && d != "." {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func alternation(dirs []string) string {
	q := make([]string, len(dirs))
	for i, d := range dirs {
		q[i] = regexp.QuoteMeta(d)
	}
	return `(?:` + strings.Join(q, "|") + `)`
}

// Message rewrites one message.
func (s *Scrubber) Message(msg string) string {
	if s.epochs != nil {
		msg = s.epochs.ReplaceAllString(msg, "$1/$2/")
	}
	if s.under != nil {
		msg = s.under.ReplaceAllString(msg, "")
	}
	if s.bare != nil {
		// What is left is a directory itself, or a path under it not of
		// an epoch: name the directory, keep the rest.
		msg = s.bare.ReplaceAllStringFunc(msg, func(m string) string {
			for _, d := range s.dirs {
				if rest, ok := strings.CutPrefix(m, d.dir); ok && (rest == "" || rest[0] == '/') {
					return d.name + rest
				}
			}
			return m
		})
	}
	return snippet.Cut(msg, maxMessage)
}

// Status rewrites a gRPC status error's message, keeping its code.
func (s *Scrubber) Status(err error) error {
	st, ok := status.FromError(err)
	if !ok || err == nil {
		return err
	}
	msg := s.Message(st.Message())
	if msg == st.Message() {
		return err
	}
	return status.Error(st.Code(), msg)
}
