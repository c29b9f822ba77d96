package main

// The binary each platform's image holds: built for that platform, and
// static, since the image has no loader nor libc.

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// elfMachines are the ELF machines of the GOARCHes the index may hold.
var elfMachines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64,
	"arm64": elf.EM_AARCH64,
}

// checkImageBinary reads the binary out of img's filesystem and checks
// it is a static ELF for goarch.
func checkImageBinary(t *testing.T, img v1.Image, goarch string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("linux/%s image: no %s", goarch, binaryPath)
		}
		if err != nil {
			t.Fatalf("linux/%s image: read its filesystem: %v", goarch, err)
		}
		if strings.TrimPrefix(h.Name, "/") != binaryPath[1:] {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("linux/%s image: read %s: %v", goarch, binaryPath, err)
		}
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("linux/%s image: %s is not ELF: %v", goarch, binaryPath, err)
		}
		checkStaticELF(t, f, goarch)
		return
	}
}

// checkStaticELF checks f is for goarch, with no interpreter and no
// shared library.
func checkStaticELF(t *testing.T, f *elf.File, goarch string) {
	t.Helper()
	if want, ok := elfMachines[goarch]; !ok || f.Machine != want {
		t.Errorf("linux/%s image: %s is for %v, want %v", goarch, binaryPath, f.Machine, want)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("linux/%s image: %s has an ELF interpreter: not static, and the image has no loader", goarch, binaryPath)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("linux/%s image: %s needs shared libraries %v (%v): want none", goarch, binaryPath, libs, err)
	}
}
