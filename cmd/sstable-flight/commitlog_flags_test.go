package main

import (
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
)

// TestCommitLogFlag: --commitlog-dir defaults to the data directory's
// sibling with --cassandra (off without it, or in sidecar mode); given,
// it needs --cassandra, refuses sidecar mode and an empty value, and a
// directory that is missing refuses to start, where the default missing
// is flushed data only.
func TestCommitLogFlag(t *testing.T) {
	parse := func(args ...string) (*options, error) {
		fs := flag.NewFlagSet("sstable-flight", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return parseFlags(fs, args)
	}
	data := filepath.Join(t.TempDir(), "data")
	o, err := parse("--data-dir", data, "--cassandra", "127.0.0.1:9042")
	if err != nil || o.commitLog != filepath.Join(filepath.Dir(data), "commitlog") || o.commitLogSet {
		t.Fatalf("default: %q set %v, %v", o.commitLog, o.commitLogSet, err)
	}
	for _, args := range [][]string{{"--data-dir", data}, {"--data-dir", data, "--cassandra", "127.0.0.1:9042", "--commitlog-dir", "off"}} {
		if o, err := parse(args...); err != nil || o.commitLog != "" {
			t.Errorf("%v: commit log %q, %v; want none", args, o.commitLog, err)
		}
	}
	for args, want := range map[string]string{
		"--data-dir " + data + " --commitlog-dir /x":                                          "give --cassandra too",
		"--data-dir " + data + " --cassandra 127.0.0.1:9042 --commitlog-dir=":                 "empty",
		"--sidecar http://127.0.0.1:9043 --cassandra 127.0.0.1:9042 --commitlog-dir /x":       "sidecar",
		"--data-dir " + data + " --cassandra 127.0.0.1:9042 --commitlog-overlay-max-bytes -1": "negative",
	} {
		if _, err := parse(strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", args, err, want)
		}
	}

	conn, err := cqlconn.New(cqlconn.Config{Addr: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Options{Conn: conn})
	o, err = parse("--data-dir", data, "--cassandra", "127.0.0.1:9042")
	if err != nil {
		t.Fatal(err)
	}
	if l, err := startCommitLog(o, cat, conn); l != nil || err != nil {
		t.Errorf("the default directory missing: %v, %v; want flushed data only", l, err)
	}
	o.commitLogSet = true
	if l, err := startCommitLog(o, cat, conn); l != nil || err == nil || !strings.Contains(err.Error(), "--commitlog-dir") {
		t.Errorf("a given directory missing: %v, %v; want a refusal naming the flag", l, err)
	}
}
