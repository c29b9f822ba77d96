package cassandratest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// TestModeVersionsAreRead holds every mode to the reader: each version a
// mode writes is one metadata.ParseVersion accepts in the mode's format.
func TestModeVersionsAreRead(t *testing.T) {
	for _, m := range Modes {
		t.Run(string(m), func(t *testing.T) {
			if len(m.Versions()) == 0 || m.Versions()[0] != string(m) {
				t.Errorf("versions %v: want the mode's own name first (the committed corpus's version)", m.Versions())
			}
			for _, v := range m.Versions() {
				if _, err := metadata.ParseVersion(v, m.Format()); err != nil {
					t.Errorf("mode %s writes %s-…-%s, which the reader refuses: %v", m, v, m.Format(), err)
				}
			}
			if _, err := m.storageYAML(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestModeListsAgree holds the lists of modes that cannot import Go to
// Modes: the Trino suite's TestCluster.MODES (every mode, in order) and
// the Makefile's BENCH_MODES (some of them).
func TestModeListsAgree(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	want := ModeNames()
	t.Run("TestCluster.MODES", func(t *testing.T) {
		src := readFile(t, filepath.Join(root, "trino", "src", "test", "java", "io", "sstableflight", "trino", "it", "TestCluster.java"))
		m := regexp.MustCompile(`List<String> MODES = List\.of\(([^)]*)\);`).FindStringSubmatch(src)
		if m == nil {
			t.Fatal("TestCluster.java: no `List<String> MODES = List.of(...);`")
		}
		var got []string
		for _, q := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
			got = append(got, q[1])
		}
		if !slices.Equal(got, want) {
			t.Errorf("TestCluster.MODES is %q, the harness's modes (internal/testkit/cassandratest/mode.go) are %q", got, want)
		}
	})
	t.Run("Makefile BENCH_MODES", func(t *testing.T) {
		src := readFile(t, filepath.Join(root, "Makefile"))
		m := regexp.MustCompile(`(?m)^BENCH_MODES\s*:?=(.*)$`).FindStringSubmatch(src)
		if m == nil {
			t.Fatal("Makefile: no BENCH_MODES := line")
		}
		fields := strings.Fields(m[1])
		if len(fields) == 0 {
			t.Error("Makefile: BENCH_MODES is empty")
		}
		for _, f := range fields {
			if !slices.Contains(want, f) {
				t.Errorf("Makefile: BENCH_MODES names %q, not one of the harness's modes %q", f, want)
			}
		}
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
