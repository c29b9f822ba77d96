package flightbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const perfDoc = "# Performance\r\n\nintro | kept\n\n" + BeginMarker + "\nold record\nmore\n" + EndMarker + "\n\n## Later\ntail without newline"

// Rewriting the section changes only the lines between the markers; the
// bytes before and after are the file's own, and a second rewrite with
// the same section changes nothing.
func TestReplaceSectionBetweenMarkers(t *testing.T) {
	out, err := ReplaceSection([]byte(perfDoc), []byte("new | record"))
	if err != nil {
		t.Fatal(err)
	}
	pre := perfDoc[:strings.Index(perfDoc, BeginMarker)+len(BeginMarker)+1]
	post := perfDoc[strings.Index(perfDoc, EndMarker):]
	if want := pre + "new | record\n" + post; string(out) != want {
		t.Fatalf("got\n%q\nwant\n%q", out, want)
	}
	again, err := ReplaceSection(out, []byte("new | record\n"))
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second rewrite changed the file (err %v):\n%q", err, again)
	}
	empty, err := ReplaceSection(out, nil)
	if err != nil || string(empty) != pre+post {
		t.Errorf("empty section: %q, %v", empty, err)
	}
}

// Without markers the section is appended under its own heading, and the
// file before it is kept whole.
func TestReplaceSectionAppends(t *testing.T) {
	for _, doc := range []string{"# Performance\n\ntext\n", "# Performance\n\ntext", ""} {
		out, err := ReplaceSection([]byte(doc), []byte("record\n"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(out), doc) {
			t.Errorf("%q: the file's text was changed: %q", doc, out)
		}
		tail := "## Lane A (issue #7)\n\n" + BeginMarker + "\nrecord\n" + EndMarker + "\n"
		if !strings.HasSuffix(string(out), tail) || strings.Count(string(out), tail) != 1 {
			t.Errorf("%q: got %q, want it to end with %q", doc, out, tail)
		}
		if doc != "" && !strings.Contains(string(out), "text\n\n## Lane A") {
			t.Errorf("%q: no blank line before the new section: %q", doc, out)
		}
		// Once appended, the markers are found: a rewrite replaces.
		again, err := ReplaceSection(out, []byte("newer\n"))
		if want := strings.Replace(string(out), "\nrecord\n", "\nnewer\n", 1); err != nil || string(again) != want {
			t.Errorf("%q: rewrite after append: %q, %v", doc, again, err)
		}
	}
}

// Markers that do not delimit one section are refused rather than guessed.
func TestReplaceSectionRefusesBrokenMarkers(t *testing.T) {
	b, e := BeginMarker+"\n", EndMarker+"\n"
	for name, doc := range map[string]string{
		"begin only":  "a\n" + b + "x\n",
		"end only":    "a\n" + e,
		"reversed":    e + "x\n" + b,
		"two begins":  b + b + "x\n" + e,
		"two ends":    b + "x\n" + e + e,
		"two records": b + e + b + e,
	} {
		if _, err := ReplaceSection([]byte(doc), []byte("r\n")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A marker inside a line is text, not a marker.
	doc := "see `" + BeginMarker + "` in the text\n"
	out, err := ReplaceSection([]byte(doc), []byte("r\n"))
	if err != nil || !strings.HasPrefix(string(out), doc) {
		t.Errorf("inline marker: %q, %v", out, err)
	}
}

// UpdateDoc rewrites the file in place, keeping its mode.
func TestUpdateDocFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "PERFORMANCE.md")
	if err := os.WriteFile(path, []byte(perfDoc), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := UpdateDoc(path, []byte("fresh\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(perfDoc, "old record\nmore\n", "fresh\n", 1); string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, %v", info.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}
