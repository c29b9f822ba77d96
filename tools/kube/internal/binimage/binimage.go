package binimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Spec is one image: its reference, the binaries it holds (each at
// /<base name>, root's, mode 0555), the entrypoint and arguments, and
// the user it runs as ("" for root).
type Spec struct {
	Ref        string   // e.g. sstf.local/pause:1; a dotted registry part keeps containerd from prefixing docker.io
	Binaries   []string // paths on this machine
	Entrypoint []string
	Cmd        []string
	User       string
}

// epoch stamps every entry and the config, so the same binaries give
// the same image digest.
var epoch = time.Unix(0, 0).UTC()

// Write builds the image of s and writes it to file as a docker-archive
// tarball tagged s.Ref.
func Write(file string, s Spec) error {
	ref, err := name.NewTag(s.Ref)
	if err != nil {
		return fmt.Errorf("image %s: parse the reference: %w", s.Ref, err)
	}
	img, err := build(s)
	if err != nil {
		return fmt.Errorf("image %s: %w", s.Ref, err)
	}
	if err := tarball.WriteToFile(file, ref, img); err != nil {
		return fmt.Errorf("image %s: write %s: %w", s.Ref, file, err)
	}
	return nil
}

func build(s Spec) (v1.Image, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	// /tmp, sticky and writable by all: Go programs may want it, and the
	// image has nothing else.
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
		return nil, fmt.Errorf("write the layer: %w", err)
	}
	for _, b := range s.Binaries {
		data, err := os.ReadFile(b)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", b, err)
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: path.Base(b), Mode: 0o555, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("write the layer: %w", err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("write the layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("write the layer: %w", err)
	}
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	})
	if err != nil {
		return nil, fmt.Errorf("make the layer: %w", err)
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, fmt.Errorf("add the layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("read the config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	cf.Created = v1.Time{Time: epoch}
	cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.User = s.Entrypoint, s.Cmd, s.User
	cf.Config.WorkingDir = "/"
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("set the config: %w", err)
	}
	return img, nil
}
