package transport

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestScrubberNamesFilesRelativeToTheDataDir(t *testing.T) {
	tmp := t.TempDir()
	data, snaps := filepath.Join(tmp, "data"), filepath.Join(tmp, "data-snaps")
	s := NewScrubber(data, snaps)
	for in, want := range map[string]string{
		"open " + data + "/ks/t-0123/oa-3-big-Data.db: no such file":                 "open ks/t-0123/oa-3-big-Data.db: no such file",
		"read " + snaps + "/ks/t-0123/abc-12/oa-3-big-Data.db at offset 0: stalled":  "read ks/t-0123/oa-3-big-Data.db at offset 0: stalled",
		"list data dir: open " + data + ": permission denied":                        "list data dir: open <data dir>: permission denied",
		"make snapshot dir " + snaps + "/x: read-only":                               "make snapshot dir <snapshot dir>/x: read-only",
		"in (" + data + "/ks/t/schema.cql:3:4) and " + data + "/ks/u/schema.cql:1:1": "in (ks/t/schema.cql:3:4) and ks/u/schema.cql:1:1",
		"nothing of ours: /etc/passwd":                                               "nothing of ours: /etc/passwd",
	} {
		if got := s.Message(in); got != want {
			t.Errorf("message(%q)\n = %q\nwant %q", in, got, want)
		}
	}
	if got := s.Message(strings.Repeat("x", 10000)); len(got) > maxMessage+40 {
		t.Errorf("a 10,000-byte message kept %d bytes", len(got))
	}
}
