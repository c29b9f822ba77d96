package marshal_test

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// TestVintExports: the exports here are the codec of sstable/internal/vint
// (tested there), and its truncation error is ErrMalformed.
func TestVintExports(t *testing.T) {
	enc := marshal.AppendUvint(nil, 16384)
	if !bytes.Equal(enc, []byte{0xc0, 0x40, 0x00}) || marshal.UvintSize(enc[0]) != 3 {
		t.Errorf("AppendUvint(16384) = % x, UvintSize %d", enc, marshal.UvintSize(enc[0]))
	}
	if v, n, err := marshal.ReadUvint(enc); v != 16384 || n != 3 || err != nil {
		t.Errorf("ReadUvint(% x) = %d, %d, %v", enc, v, n, err)
	}
	if v, n, err := marshal.ReadVint(marshal.AppendVint(nil, -65)); v != -65 || n != 2 || err != nil {
		t.Errorf("ReadVint(AppendVint(-65)) = %d, %d, %v", v, n, err)
	}
	if marshal.DecodeZigZag(marshal.EncodeZigZag(-2)) != -2 {
		t.Error("zigzag does not round-trip -2")
	}
	if _, _, err := marshal.ReadUvint(enc[:2]); !errors.Is(err, marshal.ErrMalformed) {
		t.Errorf("truncated vint: err %v, want ErrMalformed", err)
	}
}

// TestVintInlines: vints are decoded per cell, and a function call per
// vint shows in the scan and Arrow-append benchmarks. The codec's small
// functions must inline, and so must the exports here that call them
// (ReadUvint's wrapper is within a few points of the inliner's budget).
// ReadVint and AppendVint are too large and documented as such.
func TestVintInlines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	// The compiler's diagnostics are replayed from the build cache, so
	// this costs a compilation only after a change.
	out, err := exec.Command(gobin, "build", "-gcflags=-m", ".", "../internal/vint").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	// The compiler heads each package's diagnostics with "# import/path".
	sections := map[string]string{}
	pkg := ""
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "# "); ok {
			pkg = p
			continue
		}
		sections[pkg] += line + "\n"
	}
	for _, pkg := range []string{"sstable/marshal", "sstable/internal/vint"} {
		text := sections["github.com/sstable-flight/sstable-flight/"+pkg]
		for _, fn := range []string{"UvintSize", "ReadUvint", "DecodeZigZag", "EncodeZigZag", "AppendUvint"} {
			if !regexp.MustCompile(`(?m)vint\.go:\d+:\d+: can inline ` + fn + `$`).MatchString(text) {
				t.Errorf("%s: %s does not inline", pkg, fn)
			}
		}
	}
}
