package flightserver_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
)

// pyVenv builds the pyarrow venv once per test binary
// (deploy/local/pyenv.sh) and holds its python path.
var pyVenv struct {
	once   sync.Once
	python string
	err    error
	out    string
}

const pyInstallHint = "the pyarrow client check needs python3 with its venv module: " +
	"apt-get install python3 python3-venv (deploy/local/pyenv.sh tries this itself), " +
	"then bash deploy/local/pyenv.sh creates build/venv with pyarrow"

func pyarrowPython(t *testing.T) string {
	t.Helper()
	pyVenv.once.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			pyVenv.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "deploy", "local", "pyenv.sh"))
		cmd.Dir = root
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		pyVenv.err = cmd.Run()
		pyVenv.out = stderr.String()
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		pyVenv.python = strings.TrimSpace(lines[len(lines)-1])
	})
	if pyVenv.err != nil {
		t.Fatalf("deploy/local/pyenv.sh: %v\n%s\n%s", pyVenv.err, pyVenv.out, pyInstallHint)
	}
	if st, err := os.Stat(pyVenv.python); err != nil || st.IsDir() {
		t.Fatalf("deploy/local/pyenv.sh printed %q, not a python executable\n%s\n%s", pyVenv.python, pyVenv.out, pyInstallHint)
	}
	return pyVenv.python
}

// pyReadAt is the corpus read time of a mode: the instant CQL judged TTLs
// at. Every table of a mode is read within seconds; the latest is used,
// and a spread wide enough to matter for the TTLs fails.
func pyReadAt(t *testing.T, dir string) int64 {
	t.Helper()
	c, err := corpus.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tables) == 0 {
		t.Fatalf("no corpus tables in %s", dir)
	}
	var lo, hi int64
	for _, tb := range c.Tables {
		at := tb.Expected.ReadAt
		if lo == 0 || at < lo {
			lo = at
		}
		hi = max(hi, at)
	}
	if hi-lo > 5 {
		t.Fatalf("corpus %s: read_at spans %d..%d, more than 5 s", dir, lo, hi)
	}
	return hi
}

// TestPyArrowClientReadsCorpus is an independent client check: pyarrow's
// Flight client (PyPI, pinned in deploy/local/pyenv.sh) reads every table
// of each corpus mode through the server, turns the Arrow values into the
// corpus' canonical JSON in Python and compares them with expected.json,
// what real Cassandra returned over CQL (testdata/pyflight_check.py). It
// never skips: without python3 it fails, saying how to install it.
func TestPyArrowClientReadsCorpus(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("testdata", "pyflight_check.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range corpus.Modes {
		t.Run(mode, func(t *testing.T) {
			python := pyarrowPython(t)
			dir, err := filepath.Abs(filepath.Join(corpusRoot(), mode))
			if err != nil {
				t.Fatal(err)
			}
			readAt := pyReadAt(t, dir)
			ts := startServer(t, mode, func(c *flightserver.Config) {
				c.Now = func() time.Time { return time.Unix(readAt, 0) }
			})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, python, script, "--addr", ts.addr, "--corpus", dir, "--mode", mode)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v after %v\n%s", python, filepath.Base(script), err, time.Since(start).Round(time.Millisecond), out)
			}
			t.Logf("%s(%v)", out, time.Since(start).Round(time.Millisecond))
		})
	}
}
