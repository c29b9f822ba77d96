package cassandratest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(RunMain(m)) }

// TestSharedNodeWritesFlushesCompactsDumps drives the whole harness on the
// shared node: CQL writes, flushes into separate generations, a major
// compaction merging them, and sstabledump reading the result.
func TestSharedNodeWritesFlushesCompactsDumps(t *testing.T) {
	n := Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	Exec(t, s,
		"CREATE KEYSPACE IF NOT EXISTS harness_test WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"DROP TABLE IF EXISTS harness_test.kv",
		"CREATE TABLE harness_test.kv (k int PRIMARY KEY, v text)")
	if err := n.DisableAutoCompaction(ctx, "harness_test", "kv"); err != nil {
		t.Fatal(err)
	}
	for gen, v := range []string{"first", "second", "third"} {
		if err := s.Query("INSERT INTO harness_test.kv (k, v) VALUES (?, ?)", gen, v).Exec(); err != nil {
			t.Fatal(err)
		}
		if err := n.Flush(ctx, "harness_test", "kv"); err != nil {
			t.Fatal(err)
		}
	}
	if got := dataFiles(t, n); len(got) != 3 {
		t.Fatalf("after 3 flushes: want 3 Data.db, got %v", got)
	}
	if err := n.Compact(ctx, "harness_test", "kv"); err != nil {
		t.Fatal(err)
	}
	files := dataFiles(t, n)
	if len(files) != 1 {
		t.Fatalf("after major compaction: want 1 Data.db, got %v", files)
	}
	name := filepath.Base(files[0])
	version, _, _ := strings.Cut(name, "-")
	if !slices.Contains(n.Mode.Versions(), version) || !strings.Contains(name, "-"+n.Mode.Format()+"-") {
		t.Errorf("mode %s wrote %s", n.Mode, filepath.Base(files[0]))
	}
	out, err := n.SSTableDump(ctx, files[0])
	if err != nil {
		t.Fatal(err)
	}
	var dump []struct {
		Partition struct {
			Key []string `json:"key"`
		} `json:"partition"`
		Rows []struct {
			Cells []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		t.Fatalf("decode sstabledump output: %v\n%s", err, out)
	}
	got := map[string]any{}
	for _, p := range dump {
		got[p.Partition.Key[0]] = p.Rows[0].Cells[0].Value
	}
	want := map[string]any{"0": "first", "1": "second", "2": "third"}
	if len(got) != len(want) {
		t.Fatalf("sstabledump partitions: got %v, want %v", got, want)
	}
	for k, v := range want {
		t.Run(k, func(t *testing.T) {
			if got[k] != v {
				t.Errorf("partition %s: got %v, want %v", k, got[k], v)
			}
		})
	}
}

func dataFiles(t *testing.T, n *Node) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(n.DataDir(), "harness_test", "kv-*", "*-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestStopLeavesNoProcess starts a private node and checks that Stop ends
// the JVM (the pid is gone) and removes its temporary directory.
func TestStopLeavesNoProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	n, err := Start(ctx, Options{Mode: ModeDA, HeapMB: 512})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = n.Stop()
		}
	}()
	if !Alive(n.Pid) {
		t.Fatalf("pid %d not alive after Start", n.Pid)
	}
	s, err := n.Session()
	if err != nil {
		t.Fatal(err)
	}
	var v string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if v != Version {
		t.Errorf("release_version = %q, want %q", v, Version)
	}
	var yaml []byte
	if yaml, err = os.ReadFile(filepath.Join(n.Dir, "conf", "cassandra.yaml")); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(yaml, []byte("selected_format: bti")) {
		t.Errorf("da node config lacks the BTI format selection")
	}
	pid, dir := n.Pid, n.Dir
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if Alive(pid) {
		t.Fatalf("pid %d still alive after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("node dir %s not removed: %v", dir, err)
	}
}
