package main

// The Cassandra image's stamp: every input the tarball was made of, with
// its size and modification time, so a later run rebuilds only when one
// changed (a new jar version, a JDK or libc upgrade, an edited source),
// and the tarball as written, so a replaced or truncated one is rebuilt.

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// stampFormat changes when the stamp's meaning does.
const stampFormat = 1

type cassandraStamp struct {
	Format    int         `json:"format"`
	Sources   string      `json:"sources"`
	Go        string      `json:"go"`
	Classpath string      `json:"classpath"`
	Files     []fileStamp `json:"files"`
	Tar       fileStamp   `json:"tar"`
	Digest    string      `json:"digest"` // the image's manifest digest
}

type fileStamp struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
}

func statStamp(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, fmt.Errorf("stamp %s: %w", path, err)
	}
	return fileStamp{Path: path, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// newStamp records in, the host files read during the build, and the
// tarball written.
func newStamp(in cassandraInputs, hostFiles []string, tar string, img v1.Image) (cassandraStamp, error) {
	st := cassandraStamp{Format: stampFormat, Sources: in.sources, Go: in.goVersion, Classpath: strings.Join(in.jars, ":")}
	paths := slices.Concat(in.jars, in.jdkFiles, hostFiles)
	slices.Sort(paths)
	for _, p := range slices.Compact(paths) {
		fs, err := statStamp(p)
		if err != nil {
			return cassandraStamp{}, err
		}
		st.Files = append(st.Files, fs)
	}
	var err error
	if st.Tar, err = statStamp(tar); err != nil {
		return cassandraStamp{}, err
	}
	d, err := img.Digest()
	if err != nil {
		return cassandraStamp{}, fmt.Errorf("stamp the image's digest: %w", err)
	}
	st.Digest = d.String()
	return st, nil
}

// current says whether the stamp still describes in and the tarball.
func (st cassandraStamp) current(in cassandraInputs, tar string) bool {
	if st.Format != stampFormat || st.Sources != in.sources || st.Go != in.goVersion || st.Classpath != strings.Join(in.jars, ":") {
		return false
	}
	for _, f := range append(slices.Clone(st.Files), st.Tar) {
		if now, err := statStamp(f.Path); err != nil || now != f {
			return false
		}
	}
	for _, p := range in.jdkFiles {
		if !slices.ContainsFunc(st.Files, func(f fileStamp) bool { return f.Path == p }) {
			return false
		}
	}
	return st.Tar.Path == tar
}

// readStamp reads the stamp at path; a missing or unreadable one is no
// stamp (the build starts from scratch).
func readStamp(path string) (cassandraStamp, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return cassandraStamp{}, false
	}
	var st cassandraStamp
	if json.Unmarshal(b, &st) != nil {
		return cassandraStamp{}, false
	}
	return st, true
}

func writeStamp(path string, st cassandraStamp) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the stamp: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the stamp %s: %w", tmp, err)
	}
	return replace(tmp, path)
}
