package main

// The server binary for one platform, built by the go command of the
// repository's own module so the build cache serves every run after the
// first.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// mainPackage is the server's command, relative to the repository.
const mainPackage = "./cmd/sstable-flight"

// buildFlags are the go build flags of the server, besides -o. The
// Dockerfile's go build gives the same (TestDockerfileMatchesSpec).
var buildFlags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid="}

// compile builds the server for GOOS linux and goarch into dir and
// returns the binary's path. The binary is static (CGO_ENABLED=0: the
// image has no libc nor loader) and reproducible: -trimpath drops the
// build machine's paths, an empty build ID and no VCS stamp leave only
// the sources and the toolchain to decide the bytes (the revision is in
// the image's labels instead).
func compile(goCmd, repo, goarch, dir string) (string, error) {
	out := filepath.Join(dir, "sstable-flight-linux-"+goarch)
	return out, compilePackage(goCmd, repo, mainPackage, goarch, out)
}

// compilePackage builds the command pkg of the module in dir, static and
// reproducible as compile says, for linux/goarch into out (the Cassandra
// image's entrypoint is built so too).
func compilePackage(goCmd, dir, pkg, goarch, out string) error {
	cmd := exec.Command(goCmd, append(append([]string{"build"}, buildFlags...), "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s for linux/%s in %s: %w\n%s", pkg, goarch, dir, err, stderr.Bytes())
	}
	return nil
}
