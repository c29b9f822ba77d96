package main

import (
	"errors"
	"path/filepath"

	"github.com/sstable-flight/sstable-flight/tools/kube/internal/binimage"
)

// pack writes an image of static binaries as a docker-archive tarball
// (`kube-harness images` or ctr imports it): the entrypoint is the first
// binary.
func pack(out, ref, user string, binaries []string) (int, error) {
	if out == "" || ref == "" || len(binaries) == 0 {
		return 2, errors.New("pack: -o FILE -ref REF and at least one BINARY are required")
	}
	err := binimage.Write(out, binimage.Spec{
		Ref:        ref,
		Binaries:   binaries,
		Entrypoint: []string{"/" + filepath.Base(binaries[0])},
		User:       user,
	})
	if err != nil {
		return 1, err
	}
	return 0, nil
}
