// Command image builds the sstable-flight server's OCI image without a
// container engine, and pushes it (docs/image.md).
//
//	go run . [build flags]           # build/image/oci and build/image/sstable-flight.tar
//	go run . push [-layout DIR] REF  # the layout's index to a registry
//	go run . cassandra [flags]       # build/image/cassandra.tar: the test Cassandra image
//
// It lives in its own module so go-containerregistry stays out of the
// server's.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "push" {
		return runPush(args[1:])
	}
	if len(args) > 0 && args[0] == "cassandra" {
		return runCassandra(args[1:])
	}
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	o := &options{}
	fs.StringVar(&o.goCmd, "go", "go", "the go command that builds the server")
	fs.StringVar(&o.repo, "repo", "../..", "the repository's root")
	fs.StringVar(&o.out, "out", "../../build/image", "output directory: oci/ (the OCI layout), sstable-flight.tar, bin/")
	fs.StringVar(&o.source, "source", "https://github.com/sstable-flight/sstable-flight", "the org.opencontainers.image.source label")
	platforms := fs.String("platforms", "linux/amd64,linux/arm64", "platforms of the index, comma-separated")
	fs.StringVar(&o.tarArch, "tar-arch", runtime.GOARCH, "GOARCH of the image in the docker-load tarball (one platform: docker-save tarballs hold no index)")
	if err := parseRepoOut(fs, args, &o.repo, &o.out); err != nil {
		return err
	}
	var err error
	if o.arches, err = parsePlatforms(*platforms); err != nil {
		return err
	}
	if _, err := build(o); err != nil {
		return err
	}
	fmt.Printf("image: wrote %s and %s\n", rel(o.layoutDir), rel(o.tarPath))
	return nil
}

// parseRepoOut parses args with fs, which takes no positional argument,
// and makes the --repo and --out paths absolute: the go command runs in
// the repository, not here.
func parseRepoOut(fs *flag.FlagSet, args []string, repo, out *string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if *repo, err = filepath.Abs(*repo); err != nil {
		return fmt.Errorf("read --repo: %w", err)
	}
	if *out, err = filepath.Abs(*out); err != nil {
		return fmt.Errorf("read --out: %w", err)
	}
	return nil
}

// parsePlatforms reads linux/ARCH,... into GOARCHes: the server is
// built for Linux only.
func parsePlatforms(s string) ([]string, error) {
	var arches []string
	for _, p := range strings.Split(s, ",") {
		osName, arch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || osName != "linux" || arch == "" {
			return nil, fmt.Errorf("read --platforms %q: want linux/ARCH entries, got %q", s, p)
		}
		arches = append(arches, arch)
	}
	if len(arches) == 0 {
		return nil, errors.New("read --platforms: none given")
	}
	return arches, nil
}

func rel(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil {
			return r
		}
	}
	return p
}
