package main

// The native side of the Cassandra image: every ELF file the runtime and
// Cassandra's jars hold for this platform, and the shared libraries and
// dynamic loader those need, as ldd resolves them on this machine. They
// are copied into the image at their real paths, with the host's
// directory symlinks (Debian's merged /usr: /lib -> usr/lib, /lib64 ->
// usr/lib64) so the paths the loader and ldd know resolve there too.

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// nativeFiles are the host's files and symlinks the image needs for its
// native code, by their path in the image (no leading slash).
type nativeFiles struct {
	files map[string]string // a regular file: the host file to copy
	links map[string]string // a symlink: its target
}

// hostFiles are the host files copied, for the stamp.
func (n nativeFiles) hostFiles() []string {
	var out []string
	for _, h := range n.files {
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// archWords are the words a jar's path to a native library for a GOARCH
// holds (linux-x86-64, linux/amd64, x86_64-Linux, ...).
var archWords = map[string][]string{
	"amd64": {"amd64", "x86_64", "x86-64", "x64"},
	"arm64": {"aarch64", "arm64"},
}

// otherOSWords mark a jar's native library for another system, built for
// the same machine (snappy's FreeBSD and SunOS x86_64 libraries).
var otherOSWords = []string{"freebsd", "openbsd", "netbsd", "dragonfly", "sunos", "solaris", "darwin", "osx", "mac", "win32", "windows", "aix"}

// runtimeELFs are the runtime's ELF files (bin/java and its other
// launchers, every .so) and the names of its shared libraries, which ldd
// may report not found (libjvm.so is found by the launcher, not by the
// loader's path).
func runtimeELFs(jre string) ([]string, map[string]bool, error) {
	var elfs []string
	own := map[string]bool{}
	err := filepath.WalkDir(jre, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if !isELF(path) {
			return nil
		}
		elfs = append(elfs, path)
		if strings.HasSuffix(path, ".so") {
			own[filepath.Base(path)] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list the runtime's ELF files in %s: %w", jre, err)
	}
	return elfs, own, nil
}

func isELF(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// jarELFs extracts into dir the native libraries Cassandra's jars carry
// for linux/goarch (JNA, Netty's epoll and tcnative, zstd, lz4, snappy,
// jffi), which the JVM loads at run time.
func jarELFs(jars []string, goarch, dir string) ([]string, error) {
	words, ok := archWords[goarch]
	if !ok {
		return nil, fmt.Errorf("find the jars' native libraries: no architecture words for GOARCH %s", goarch)
	}
	var out []string
	for _, jar := range jars {
		libs, err := extractJarELFs(jar, words, filepath.Join(dir, filepath.Base(jar)))
		if err != nil {
			return nil, err
		}
		out = append(out, libs...)
	}
	return out, nil
}

func extractJarELFs(jar string, archWords []string, dir string) ([]string, error) {
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", jar, err)
	}
	defer zr.Close()
	var out []string
	for _, f := range zr.File {
		lower := strings.ToLower(f.Name)
		if !strings.HasSuffix(lower, ".so") || !containsAny(lower, archWords) || containsAny(lower, otherOSWords) {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := extractZipFile(f, path); err != nil {
			return nil, fmt.Errorf("extract %s from %s: %w", f.Name, jar, err)
		}
		out = append(out, path)
	}
	return out, nil
}

func containsAny(s string, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
}

func extractZipFile(f *zip.File, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// lddDeps resolves what elfs need with ldd. A library reported not found
// must be one of the runtime's own (own); one under work (the runtime's
// own, found through its launcher's RUNPATH) is in the image already.
func lddDeps(ctx context.Context, elfs []string, own map[string]bool, work string) (nativeFiles, error) {
	n := nativeFiles{files: map[string]string{}, links: map[string]string{}}
	for _, e := range elfs {
		out, err := exec.CommandContext(ctx, "ldd", e).CombinedOutput()
		if err != nil {
			return nativeFiles{}, fmt.Errorf("ldd %s: %w\n%s", e, err, out)
		}
		deps, err := parseLDD(out, own)
		if err != nil {
			return nativeFiles{}, fmt.Errorf("ldd %s: %w", e, err)
		}
		for _, d := range deps {
			if rel, err := filepath.Rel(work, d); err == nil && !strings.HasPrefix(rel, "..") {
				continue
			}
			if err := n.add(d); err != nil {
				return nativeFiles{}, err
			}
		}
	}
	return n, nil
}

// parseLDD reads ldd's lines: "name => /path (addr)" for a library,
// "/path (addr)" for the loader, "name (addr)" for the vDSO (no file),
// "name => not found" for one the loader cannot find.
func parseLDD(out []byte, own map[string]bool) ([]string, error) {
	var deps []string
	for _, line := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		line = strings.TrimSpace(line)
		name, target, arrow := strings.Cut(line, "=>")
		name, target = strings.TrimSpace(name), strings.TrimSpace(target)
		if !arrow {
			target = name
		}
		if strings.HasPrefix(target, "not found") {
			if own[name] {
				continue
			}
			return nil, fmt.Errorf("%s not found", name)
		}
		if path, _, _ := strings.Cut(target, " "); strings.HasPrefix(path, "/") {
			deps = append(deps, path)
		}
	}
	return deps, nil
}

// add places the host file at path in the image at its real directory,
// under the name the loader asks for (libz.so.1, not the file the
// symlink names), and records the symlinked directories on its way.
func (n nativeFiles) add(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", path, err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("resolve %s: %w", filepath.Dir(path), err)
	}
	n.files[strings.TrimPrefix(filepath.Join(dir, filepath.Base(path)), "/")] = real
	for d := filepath.Dir(path); d != "/"; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", d, err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		target, err := os.Readlink(d)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", d, err)
		}
		n.links[strings.TrimPrefix(d, "/")] = target
	}
	return nil
}
