package main

// Unpacking an image's filesystem into a directory, as a container
// runtime would: go-containerregistry flattens the layers
// (mutate.Extract), and each entry is written with its mode and owner.

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// unpacked is one entry of an unpacked filesystem.
type unpacked struct {
	typeflag byte
	mode     int64
	uid, gid int
	link     string // a symlink's target
}

// unpack writes img's filesystem under root and returns its entries by
// path (without the leading slash or a trailing one).
func unpack(t *testing.T, img v1.Image, root string) map[string]unpacked {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	entries := map[string]unpacked{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries
		}
		if err != nil {
			t.Fatalf("read the image's filesystem: %v", err)
		}
		name := strings.Trim(filepath.Clean("/"+h.Name), "/")
		if name == "" {
			continue
		}
		if err := unpackEntry(root, name, h, tr); err != nil {
			t.Fatal(err)
		}
		entries[name] = unpacked{typeflag: h.Typeflag, mode: h.Mode, uid: h.Uid, gid: h.Gid, link: h.Linkname}
	}
}

// unpackEntry writes one directory, regular file or symlink (the
// Cassandra image has symlinks; the server's image checks it has none);
// anything else is an error.
func unpackEntry(root, name string, h *tar.Header, r io.Reader) error {
	path := filepath.Join(root, name)
	perm := os.FileMode(h.Mode).Perm()
	switch h.Typeflag {
	case tar.TypeSymlink:
		if err := os.Symlink(h.Linkname, path); err != nil {
			return fmt.Errorf("unpack %s: %w", name, err)
		}
		if err := os.Lchown(path, h.Uid, h.Gid); err != nil {
			return fmt.Errorf("unpack %s: %w", name, err)
		}
		return nil
	case tar.TypeDir:
		if err := os.MkdirAll(path, 0o755); err != nil {
			return fmt.Errorf("unpack %s: %w", name, err)
		}
	case tar.TypeReg:
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("unpack %s: %w", name, err)
		}
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("unpack %s: %w", name, err)
		}
	default:
		return fmt.Errorf("unpack %s: type %q, want only directories, regular files and symlinks", name, h.Typeflag)
	}
	if err := os.Lchown(path, h.Uid, h.Gid); err != nil {
		return fmt.Errorf("unpack %s: %w", name, err)
	}
	// Chmod after chown: chown clears the set-id bits, and the sticky
	// bit of /tmp needs os.ModeSticky, which Perm drops.
	mode := perm
	if h.Mode&0o1000 != 0 {
		mode |= os.ModeSticky
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("unpack %s: %w", name, err)
	}
	return nil
}
