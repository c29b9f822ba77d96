package main

// The image's one layer: the binary and the volumes' mount points, each
// entry's owner, mode and time fixed so the same binary gives the same
// layer digest. The tar stream is written with the standard library's
// archive/tar; go-containerregistry compresses it and computes its
// digests. The Cassandra image's layers (cassandra_layers.go) are
// written by the same newLayer and writeTar.

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// entry is one file, directory or symlink of a layer. An entry with a
// source is the regular file read from it, one with data (non-nil) the
// regular file of those bytes, one with a link the symlink to it; one
// with none of them, a directory.
type entry struct {
	name     string // path in the image, without the leading slash
	source   string
	data     []byte
	link     string
	mode     int64
	uid, gid int
}

// layerEntries are the layer's entries in the order they are written,
// parents before children. The binary belongs to root and is read-only,
// so the server cannot replace itself; the data volume's mount point
// belongs to the server's user, so a fresh volume (docker's copy of the
// image's directory) is one it may write its snapshots to; /tmp is
// sticky and writable by all, as everywhere.
func layerEntries(binary string) []entry {
	return []entry{
		{name: binaryPath[1:], source: binary, mode: 0o555},
		{name: "tmp/", mode: 0o1777},
		{name: "var/", mode: 0o755},
		{name: "var/lib/", mode: 0o755},
		{name: dataVolume[1:] + "/", mode: 0o755, uid: uid, gid: gid},
	}
}

// buildLayer returns the layer of binary, every entry stamped with
// mtime.
func buildLayer(binary string, mtime time.Time) (v1.Layer, error) {
	return newLayer(layerEntries(binary), mtime, binary)
}

// newLayer returns the layer of entries, every entry stamped with mtime;
// what names the layer in errors.
func newLayer(entries []entry, mtime time.Time, what string) (v1.Layer, error) {
	var buf bytes.Buffer
	if err := writeTar(&buf, entries, mtime); err != nil {
		return nil, fmt.Errorf("write the layer of %s: %w", what, err)
	}
	data := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithCompressedCaching, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("compress the layer of %s: %w", what, err)
	}
	return layer, nil
}

// writeTar writes entries as a tar stream in PAX format with no user or
// group names (an empty base has none to resolve them).
func writeTar(w io.Writer, entries []entry, mtime time.Time) error {
	tw := tar.NewWriter(w)
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.gid,
			ModTime: mtime,
			Format:  tar.FormatPAX,
		}
		var content []byte
		switch {
		case e.link != "":
			h.Typeflag = tar.TypeSymlink
			h.Linkname = e.link
		case e.source != "":
			var err error
			if content, err = os.ReadFile(e.source); err != nil {
				return fmt.Errorf("read %s for %s: %w", e.source, e.name, err)
			}
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(content))
		case e.data != nil:
			content = e.data
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(content))
		default:
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write the tar header of %s: %w", e.name, err)
		}
		if _, err := tw.Write(content); err != nil {
			return fmt.Errorf("write %s into the tar: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("close the tar: %w", err)
	}
	return nil
}
