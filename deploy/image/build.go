package main

// A build: the binaries, the images, and the two outputs (an OCI layout
// of the index and a docker-load tarball of one platform's image).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// repoName is the image's name in the tarball's tags and the layout's
// ref.name annotation.
const repoName = "sstable-flight"

// options say what to build from where into where.
type options struct {
	goCmd     string   // the go command
	repo      string   // the repository's root
	out       string   // the output directory (build/image)
	source    string   // org.opencontainers.image.source
	arches    []string // GOARCHes of the index
	tarArch   string   // the GOARCH of the tarball's image
	layoutDir string   // set by build: out/oci
	tarPath   string   // set by build: out/sstable-flight.tar
}

// result is what build wrote.
type result struct {
	meta   meta
	index  v1.ImageIndex
	images map[string]v1.Image // by GOARCH
}

// build compiles the server for every arch and writes the OCI layout
// and the tarball. Each output is written beside its place and renamed
// into it, so a failed build leaves the last good one.
func build(o *options) (*result, error) {
	if !slices.Contains(o.arches, o.tarArch) {
		return nil, fmt.Errorf("the tarball's platform linux/%s is not among the built ones %v", o.tarArch, o.arches)
	}
	m, err := readMeta(o.repo, o.source)
	if err != nil {
		return nil, err
	}
	binDir := filepath.Join(o.out, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", binDir, err)
	}
	r := &result{meta: m, images: map[string]v1.Image{}}
	for _, a := range o.arches {
		bin, err := compile(o.goCmd, o.repo, a, binDir)
		if err != nil {
			return nil, err
		}
		if r.images[a], err = platformImage(m, a, bin); err != nil {
			return nil, err
		}
	}
	r.index = index(m, r.images)
	o.layoutDir = filepath.Join(o.out, "oci")
	if err := writeLayout(o.layoutDir, m, r.index); err != nil {
		return nil, err
	}
	o.tarPath = filepath.Join(o.out, repoName+".tar")
	if err := writeTarball(o.tarPath, m, r.images[o.tarArch]); err != nil {
		return nil, err
	}
	return r, nil
}

// writeLayout writes idx as the one entry of an OCI layout at dir,
// named by the version (the ref.name annotation tools such as skopeo
// and crane read).
func writeLayout(dir string, m meta, idx v1.ImageIndex) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("remove %s: %w", tmp, err)
	}
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return fmt.Errorf("start the OCI layout %s: %w", tmp, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": m.version,
	})); err != nil {
		return fmt.Errorf("write the index into %s: %w", tmp, err)
	}
	return replace(tmp, dir)
}

// writeTarball writes img as a docker-save tarball tagged with the
// version and latest, which `docker load` reads.
func writeTarball(path string, m meta, img v1.Image) error {
	refs := map[name.Reference]v1.Image{}
	for _, t := range []string{m.version, "latest"} {
		tag, err := name.NewTag(repoName + ":" + t)
		if err != nil {
			return fmt.Errorf("tag the tarball's image %q: %w", t, err)
		}
		refs[tag] = img
	}
	tmp := path + ".tmp"
	if err := tarball.MultiRefWriteToFile(tmp, refs); err != nil {
		return fmt.Errorf("write the tarball %s: %w", tmp, err)
	}
	return replace(tmp, path)
}

// replace moves tmp to path, whatever path was before.
func replace(tmp, path string) error {
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove the old %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("move %s into place: %w", tmp, err)
	}
	return nil
}

// readMeta reads the version, revision and commit time from git in
// repo. SOURCE_DATE_EPOCH, when set, replaces the commit time, as
// reproducible builds agree.
func readMeta(repo, source string) (meta, error) {
	m := meta{source: source}
	var err error
	if m.version, err = git(repo, "describe", "--tags", "--always", "--dirty"); err != nil {
		return meta{}, err
	}
	if m.revision, err = git(repo, "rev-parse", "HEAD"); err != nil {
		return meta{}, err
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = git(repo, "log", "-1", "--format=%ct"); err != nil {
			return meta{}, err
		}
	}
	secs, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return meta{}, fmt.Errorf("read the build time %q (SOURCE_DATE_EPOCH or the commit's): %w", epoch, err)
	}
	m.created = time.Unix(secs, 0).UTC()
	return m, nil
}

// git runs git with args in repo and returns its trimmed output.
func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), repo, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}
