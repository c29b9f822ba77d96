package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWaitsForCassandraToCreateTheDataDir: started on a fresh volume
// before Cassandra made its data directory (a pod's containers start
// together), the server with --data-dir-wait waits for it, saying so,
// and serves once it appears, where it used to exit into a crash loop
// (the real-kubelet test's StatefulSet showed two restarts per pod).
// Without the wait a missing directory is still refused at once.
func TestWaitsForCassandraToCreateTheDataDir(t *testing.T) {
	bin := buildServer(t)
	volume := t.TempDir()
	data := filepath.Join(volume, "data")
	args := append(serverArgs(data, filepath.Join(volume, "sstable-flight-snapshots")), "--data-dir-wait", "1m")
	s := spawn(t, bin, nil, args...)
	deadline := time.Now().Add(startTimeout)
	for !strings.Contains(s.stderr.String(), "waiting for the data directory") {
		select {
		case <-s.done:
			s.fatalf(t, "exited while its data directory was missing: %v", s.waitErr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.fatalf(t, "did not say it waits for its data directory within %v", startTimeout)
		}
	}
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if !s.waitServing(t) {
		s.fatalf(t, "exited instead of serving once the data directory appeared: %v", s.waitErr)
	}
	s.terminate(t)

	requireRefused(t, bin, nil, []string{"--data-dir", `": not a readable directory`},
		serverArgs(filepath.Join(volume, "missing"), filepath.Join(volume, "snaps"))...)
}
