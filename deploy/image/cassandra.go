package main

// The test Cassandra image (docs/image.md, "The test Cassandra image"):
// `go run . cassandra` writes build/image/cassandra.tar, a docker-save
// tarball of one linux image tagged localhost/sstf-cassandra:<version>,
// which `ctr -n k8s.io images import` and `docker load` read. It is built
// here, never pulled: Cassandra's jars from the test harness's Maven
// classpath, a Java runtime jlinked from the JDK 17 the harness runs
// Cassandra with, the shared libraries that runtime needs copied from
// this machine, and a static Go entrypoint in place of the official
// image's shell scripts. A stamp beside the tarball records every input;
// while none changed, a run only checks them.

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// cassandraRepo is the image's name, on a registry host no pull can
// reach, so a kubelet finds it only among the images imported here.
const cassandraRepo = "localhost/sstf-cassandra"

// cassandraTag is the tarball's one tag.
func cassandraTag() string { return cassandraRepo + ":" + cassandratest.Version }

// cassandraOptions say where the image comes from and goes.
type cassandraOptions struct {
	goCmd  string // the go command that builds the entrypoint
	repo   string // the repository's root
	out    string // the output directory (build/image)
	force  bool   // build even when the stamp says the tarball is current
	goarch string // the image's platform: this machine's (its JDK and libraries)
}

func (o cassandraOptions) tarPath() string   { return filepath.Join(o.out, "cassandra.tar") }
func (o cassandraOptions) stampPath() string { return filepath.Join(o.out, "cassandra.stamp.json") }

func runCassandra(args []string) error {
	fs := flag.NewFlagSet("image cassandra", flag.ContinueOnError)
	o := cassandraOptions{goarch: runtime.GOARCH}
	fs.StringVar(&o.goCmd, "go", "go", "the go command that builds the entrypoint")
	fs.StringVar(&o.repo, "repo", "../..", "the repository's root")
	fs.StringVar(&o.out, "out", "../../build/image", "output directory: cassandra.tar and its stamp")
	fs.BoolVar(&o.force, "force", false, "rebuild even when no input changed")
	if err := parseRepoOut(fs, args, &o.repo, &o.out); err != nil {
		return err
	}
	start := time.Now()
	st, built, err := buildCassandra(context.Background(), o)
	if err != nil {
		return err
	}
	verb := "up to date"
	if built {
		verb = "built"
	}
	fmt.Printf("image cassandra: %s %s (%s, %.1f MiB, %s) in %.1fs\n", verb, rel(o.tarPath()), cassandraTag(),
		float64(st.Tar.Size)/(1<<20), st.Digest, time.Since(start).Seconds())
	return nil
}

// buildCassandra writes the tarball and its stamp unless the stamp shows
// them current; it returns the stamp and whether it built.
func buildCassandra(ctx context.Context, o cassandraOptions) (cassandraStamp, bool, error) {
	in, err := resolveCassandraInputs(ctx, o)
	if err != nil {
		return cassandraStamp{}, false, err
	}
	if old, ok := readStamp(o.stampPath()); ok && !o.force && old.current(in, o.tarPath()) {
		return old, false, nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return cassandraStamp{}, false, fmt.Errorf("create %s: %w", o.out, err)
	}
	work, err := os.MkdirTemp(o.out, "cassandra-work-")
	if err != nil {
		return cassandraStamp{}, false, fmt.Errorf("create a work directory in %s: %w", o.out, err)
	}
	defer os.RemoveAll(work)
	parts, err := assembleCassandra(ctx, o, in, work)
	if err != nil {
		return cassandraStamp{}, false, err
	}
	img, err := cassandraImage(parts)
	if err != nil {
		return cassandraStamp{}, false, err
	}
	if err := writeCassandraTarball(o.tarPath(), img); err != nil {
		return cassandraStamp{}, false, err
	}
	st, err := newStamp(in, parts.hostFiles, o.tarPath(), img)
	if err != nil {
		return cassandraStamp{}, false, err
	}
	if err := writeStamp(o.stampPath(), st); err != nil {
		return cassandraStamp{}, false, err
	}
	return st, true, nil
}
