package charttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kubeFlags are peer discovery's flags, which the chart renders before
// the server registers them; once it does, they are checked like the
// rest.
var kubeFlags = []string{"--kube-service", "--kube-namespace", "--kube-port-name"}

// flagDef matches a flag registration of the server's command:
// fs.StringVar(&x, "name", ...) or fs.Int("name", ...).
var flagDef = regexp.MustCompile(`fs\.[A-Z][A-Za-z0-9]*\((?:[^",]+, )?"([a-z0-9-]+)"`)

// serverFlags reads the flags cmd/sstable-flight registers.
func serverFlags(t *testing.T) map[string]bool {
	t.Helper()
	dir := filepath.Join(ChartDir(), "..", "..", "cmd", "sstable-flight")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources in %s: %v", dir, err)
	}
	known := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range flagDef.FindAllStringSubmatch(string(b), -1) {
			known["--"+m[1]] = true
		}
	}
	if !known["--data-dir"] || !known["--snapshot-mode"] || !known["--log-level"] {
		t.Fatalf("read no flag registrations from %s (found %v)", dir, known)
	}
	return known
}

// TestFlagsAreTheServers asserts every flag the chart passes, in every
// mode of the matrix, is one the server registers: a renamed flag would
// otherwise only show as pods that never start.
func TestFlagsAreTheServers(t *testing.T) {
	known := serverFlags(t)
	pending := !known[kubeFlags[0]]
	for _, c := range Matrix {
		t.Run(c.Name, func(t *testing.T) {
			r := renderCase(t, c)
			for _, p := range workloadPods(t, c, r) {
				for f := range flags(serverContainer(t, p).Args) {
					if known[f] {
						continue
					}
					if pending && strings.HasPrefix(f, "--kube-") {
						t.Logf("%s: %s is not registered yet (peer discovery's flag)", p.where, f)
						continue
					}
					t.Errorf("%s: the chart passes %s, which cmd/sstable-flight does not register", p.where, f)
				}
			}
		})
	}
}
