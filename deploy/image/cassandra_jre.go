package main

// The image's Java runtime: jlink from the harness's JDK 17, with the
// modules Cassandra's jars use (jdeps) and those it loads by name at run
// time, stripped of debug data, man pages, headers and the desktop's
// native libraries.

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// runtimeModules are modules no class refers to, which jdeps cannot
// find: JNDI's rmi: URLs (NodeTool finds the JMX connector through
// one), elliptic-curve TLS, and the JMX agent.
var runtimeModules = []string{"jdk.naming.rmi", "jdk.crypto.ec", "jdk.management.agent"}

// desktopNatives are java.desktop's native libraries for windows, fonts,
// images and sound, excluded from the runtime: Cassandra needs the
// module for java.beans (SnakeYAML's bean properties) only, and these
// libraries would bring X11, freetype, ALSA and more into the image.
var desktopNatives = []string{
	"libawt_xawt.so", "libfontmanager.so", "libjavajpeg.so", "libjawt.so",
	"libjsound.so", "liblcms.so", "libsplashscreen.so",
}

// jlinkFlags strip what a server needs not; --compress=2 zips the
// modules file (smaller, and the image's gzip gains little on it).
var jlinkFlags = []string{"--strip-debug", "--no-man-pages", "--no-header-files", "--compress=2"}

// javaModules are the modules of the runtime: what jdeps finds the jars
// use on Java 17, and runtimeModules.
func javaModules(ctx context.Context, jdk string, jars []string) ([]string, error) {
	args := append([]string{"--ignore-missing-deps", "--multi-release", "17", "--print-module-deps", "-q"}, jars...)
	out, err := runTool(ctx, filepath.Join(jdk, "bin", "jdeps"), args...)
	if err != nil {
		return nil, err
	}
	mods := slices.Concat(strings.Split(strings.TrimSpace(out), ","), runtimeModules)
	slices.Sort(mods)
	mods = slices.Compact(mods)
	if !slices.Contains(mods, "java.base") {
		return nil, fmt.Errorf("jdeps over Cassandra's jars printed %q: no java.base", out)
	}
	return mods, nil
}

// jlinkRuntime writes the runtime of modules into dir (which must not
// exist).
func jlinkRuntime(ctx context.Context, jdk string, modules []string, dir string) error {
	var exclude []string
	for _, n := range desktopNatives {
		exclude = append(exclude, "**/"+n)
	}
	args := slices.Concat([]string{"--add-modules", strings.Join(modules, ",")}, jlinkFlags,
		[]string{"--exclude-files=" + strings.Join(exclude, ","), "--output", dir})
	_, err := runTool(ctx, filepath.Join(jdk, "bin", "jlink"), args...)
	return err
}

// runTool runs a JDK tool and returns its standard output; a failure
// carries its output.
func runTool(ctx context.Context, tool string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, tool, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("run %s: %w\n%s%s", filepath.Base(tool), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
