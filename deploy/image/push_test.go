package main

// Pushing the layout's index: into go-containerregistry's in-process
// registry, and read back from it.

import (
	"io"
	"log"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func TestPushToRegistry(t *testing.T) {
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer reg.Close()
	bin, m := standIn(t)
	images := map[string]v1.Image{}
	for _, a := range []string{"amd64", "arm64"} {
		img, err := platformImage(m, a, bin)
		if err != nil {
			t.Fatal(err)
		}
		images[a] = img
	}
	idx := index(m, images)
	oci := filepath.Join(t.TempDir(), "oci")
	if err := writeLayout(oci, m, idx); err != nil {
		t.Fatal(err)
	}
	ref := strings.TrimPrefix(reg.URL, "http://") + "/sstable-flight:v1"
	if err := run([]string{"push", "-insecure", "-layout", oci, ref}); err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(r)
	if err != nil {
		t.Fatalf("pull the pushed index %s: %v", ref, err)
	}
	got, err := pulled.Digest()
	if err != nil {
		t.Fatal(err)
	}
	want, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("registry holds index %s under %s, pushed %s", got, ref, want)
	}
	im, err := pulled.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 {
		t.Fatalf("pushed index has %d images, want 2", len(im.Manifests))
	}
	for _, d := range im.Manifests {
		if _, err := pulled.Image(d.Digest); err != nil {
			t.Errorf("pull the pushed %v image %s: %v", d.Platform, d.Digest, err)
		}
	}
}
