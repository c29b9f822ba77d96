package cassandratest

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Version is the Cassandra release the harness resolves. It is the newest
// 5.0.x that Maven Central served when the pom was last updated.
const Version = "5.0.9"

//go:embed maven/pom.xml
var pom []byte

// Runtime is what it takes to run Cassandra's classes: a JDK 17 and the
// classpath of cassandra-all with its runtime dependencies.
type Runtime struct {
	Java      string // path of the java binary (JDK 17)
	Classpath string // jars joined by ':'
}

// Install finds a JDK 17 and resolves Cassandra's classpath with Maven. The
// classpath is cached under the user cache directory keyed by the pom's
// hash; when every jar it names is still in ~/.m2 no Maven run happens.
func Install(ctx context.Context) (Runtime, error) {
	java, err := findJava17(ctx)
	if err != nil {
		return Runtime{}, err
	}
	cp, err := resolveClasspath(ctx)
	if err != nil {
		return Runtime{}, err
	}
	return Runtime{Java: java, Classpath: cp}, nil
}

func cacheDir() (string, error) {
	if d := os.Getenv("SSTF_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find cache dir: %w", err)
	}
	return filepath.Join(d, "sstable-flight"), nil
}

func resolveClasspath(ctx context.Context) (string, error) {
	base, err := cacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(pom)
	dir := filepath.Join(base, "cassandra-"+Version+"-"+hex.EncodeToString(sum[:6]))
	cpFile := filepath.Join(dir, "classpath.txt")
	if cp, err := os.ReadFile(cpFile); err == nil && classpathComplete(string(cp)) {
		return strings.TrimSpace(string(cp)), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create maven dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pom.xml"), pom, 0o644); err != nil {
		return "", fmt.Errorf("write pom: %w", err)
	}
	tmp := cpFile + ".tmp"
	cmd := exec.CommandContext(ctx, "mvn", "-B", "-q", "dependency:build-classpath",
		"-Dmdep.outputFile="+tmp, "-Dmdep.includeScope=runtime")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("resolve cassandra-all %s with maven: %w\n%s", Version, err, tail(out.String(), 40))
	}
	if err := os.Rename(tmp, cpFile); err != nil {
		return "", fmt.Errorf("store classpath: %w", err)
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		return "", fmt.Errorf("read classpath: %w", err)
	}
	if !classpathComplete(string(cp)) {
		return "", errors.New("resolve cassandra classpath: maven wrote an incomplete classpath")
	}
	return strings.TrimSpace(string(cp)), nil
}

func classpathComplete(cp string) bool {
	cp = strings.TrimSpace(cp)
	if !strings.Contains(cp, "cassandra-all-"+Version+".jar") {
		return false
	}
	for _, jar := range strings.Split(cp, ":") {
		if _, err := os.Stat(jar); err != nil {
			return false
		}
	}
	return true
}

var javaVersionRE = regexp.MustCompile(`version "(\d+)`)

// findJava17 prefers an explicit SSTF_JAVA_HOME, then JAVA_HOME, then the
// Debian JDK 17 location, then java on PATH; the first that reports major
// version 17 wins. Cassandra 5.0 runs on 11 and 17 only, so the machine's
// other JDK (25) must never be picked by accident.
func findJava17(ctx context.Context) (string, error) {
	var candidates []string
	for _, env := range []string{"SSTF_JAVA_HOME", "JAVA_HOME"} {
		if h := os.Getenv(env); h != "" {
			candidates = append(candidates, filepath.Join(h, "bin", "java"))
		}
	}
	candidates = append(candidates, "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "/usr/lib/jvm/java-17-openjdk-arm64/bin/java")
	if p, err := exec.LookPath("java"); err == nil {
		candidates = append(candidates, p)
	}
	var seen []string
	for _, c := range candidates {
		out, err := exec.CommandContext(ctx, c, "-version").CombinedOutput()
		if err != nil {
			continue
		}
		m := javaVersionRE.FindSubmatch(out)
		if m != nil && string(m[1]) == "17" {
			return c, nil
		}
		if m != nil {
			seen = append(seen, c+" (java "+string(m[1])+")")
		}
	}
	return "", fmt.Errorf("find JDK 17 for Cassandra %s: none among %v; set SSTF_JAVA_HOME", Version, seen)
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
