package main

// What the Cassandra image is made of, found before anything is built:
// the harness's JDK 17 and Cassandra classpath (internal/testkit/cassandratest
// resolves both, with Maven into ~/.m2, and caches the classpath), the
// sources of the builder and the entrypoint, and the Go toolchain.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// cassandraInputs are the inputs known before a build; the host's shared
// libraries are found during one (nativeLibs) and join them in the stamp.
type cassandraInputs struct {
	jdk       string   // JAVA_HOME of the JDK 17 (jlink, jdeps, jmods)
	jars      []string // Cassandra's classpath, in Maven's order
	sources   string   // the hash of the builder's and entrypoint's sources
	goVersion string   // the toolchain that builds the entrypoint
	jdkFiles  []string // what jlink reads: the JDK's release, modules and jmods
}

func resolveCassandraInputs(ctx context.Context, o cassandraOptions) (cassandraInputs, error) {
	rt, err := cassandratest.Install(ctx)
	if err != nil {
		return cassandraInputs{}, fmt.Errorf("resolve Cassandra %s and its JDK as the harness does: %w", cassandratest.Version, err)
	}
	in := cassandraInputs{jars: strings.Split(rt.Classpath, ":")}
	if in.jdk, err = jdkHome(rt.Java); err != nil {
		return cassandraInputs{}, err
	}
	jmods, err := filepath.Glob(filepath.Join(in.jdk, "jmods", "*.jmod"))
	if err != nil || len(jmods) == 0 {
		return cassandraInputs{}, fmt.Errorf("find the jmods jlink needs in %s/jmods (Debian: openjdk-17-jdk-headless): none (%v)", in.jdk, err)
	}
	in.jdkFiles = append([]string{filepath.Join(in.jdk, "release"), filepath.Join(in.jdk, "lib", "modules")}, jmods...)
	if in.sources, err = hashSources(filepath.Join(o.repo, "deploy", "image")); err != nil {
		return cassandraInputs{}, err
	}
	out, err := exec.CommandContext(ctx, o.goCmd, "env", "GOVERSION").Output()
	if err != nil {
		return cassandraInputs{}, fmt.Errorf("read the Go version (%s env GOVERSION): %w", o.goCmd, err)
	}
	in.goVersion = string(bytes.TrimSpace(out))
	return in, nil
}

// jdkHome is the JDK whose java binary is java (bin/java under it,
// through the alternatives' symlinks).
func jdkHome(java string) (string, error) {
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return "", fmt.Errorf("resolve the JDK of %s: %w", java, err)
	}
	home := filepath.Dir(filepath.Dir(real))
	for _, tool := range []string{"jlink", "jdeps"} {
		if _, err := os.Stat(filepath.Join(home, "bin", tool)); err != nil {
			return "", fmt.Errorf("the JDK 17 at %s has no %s (a JRE, not a JDK?): %w", home, tool, err)
		}
	}
	return home, nil
}

// sourceGlobs are the files, under deploy/image, that decide the image
// besides its inputs on this machine: the builder, the shared layout and
// configuration, the entrypoint, and the module's requirements.
var sourceGlobs = []string{"*.go", "cassandra/*.go", "cmd/cassandra-entrypoint/*.go", "go.mod", "go.sum"}

// hashSources hashes the names and contents of the source files under
// dir (tests excluded: they build nothing into the image).
func hashSources(dir string) (string, error) {
	var files []string
	for _, g := range sourceGlobs {
		m, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			return "", fmt.Errorf("list the sources %s: %w", g, err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no sources of the Cassandra image under %s", dir)
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("hash the sources: %w", err)
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
