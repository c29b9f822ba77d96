package binimage

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestWrite reads an image back from its archive: the tag, the config
// (entrypoint, user, platform), one layer with the binary at its base
// name, mode 0555 and the same bytes; and a second write of the same
// binary gives the same digest, so images repeat.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tool")
	content := []byte("#!not really an executable\n")
	if err := os.WriteFile(bin, content, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Ref: "sstf.local/tool:1", Binaries: []string{bin}, Entrypoint: []string{"/tool"}, Cmd: []string{"serve"}, User: "65535:65535"}
	a, b := filepath.Join(dir, "a.tar"), filepath.Join(dir, "b.tar")
	for _, f := range []string{a, b} {
		if err := Write(f, spec); err != nil {
			t.Fatal(err)
		}
	}
	tag, _ := name.NewTag(spec.Ref)
	img, err := tarball.ImageFromPath(a, &tag)
	if err != nil {
		t.Fatalf("read the archive back under %s: %v", tag, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || cf.Config.User != spec.User ||
		len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != "/tool" || len(cf.Config.Cmd) != 1 || cf.Config.Cmd[0] != "serve" {
		t.Fatalf("config %+v / %+v", cf, cf.Config)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	found := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "tool" {
			got, _ := io.ReadAll(tr)
			if h.Mode != 0o555 || h.Uid != 0 || string(got) != string(content) {
				t.Fatalf("tool in the layer: mode %o uid %d content %q", h.Mode, h.Uid, got)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("no tool in the layer")
	}
	other, err := tarball.ImageFromPath(b, &tag)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := other.Digest()
	if d1 != d2 {
		t.Fatalf("two writes of the same binary: %s and %s", d1, d2)
	}
}
