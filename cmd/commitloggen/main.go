package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// fixture is one node's configuration: the commit log version its mode
// writes and its compressor ("" for none).
type fixture struct {
	Name        string `json:"name"`
	Mode        string `json:"mode"`
	Compression string `json:"compression,omitempty"`
}

var fixtures = []fixture{
	{"v7-none", "nb", ""},
	{"v7-lz4", "nb", "LZ4Compressor"},
	{"v8-none", "oa", ""},
	{"v8-snappy", "oa", "SnappyCompressor"},
	{"v8-deflate", "oa", "DeflateCompressor"},
	{"v8-zstd", "oa", "ZstdCompressor"},
}

// Workload constants: the fixtures' tests count what this writes.
const (
	keyspace = "cl_fixture"
	table    = "kv"
	rows     = 300
)

// result is what manifest.json records of one fixture.
type result struct {
	fixture
	Files   []string `json:"files"`
	TableID string   `json:"table_id"` // hex of the table's 16-byte id
	// Entries is how many mutations of the workload reach the log: the
	// rows, the TTL row, the set update and the partition deletion.
	Entries int `json:"entries"`
	// Markers is how many of those carry the text "clfix-".
	Markers int `json:"markers"`
	// Intervals is sstablemetadata's "Replay positions covered" line for the
	// flushed table: the positions Cassandra says the SSTable covers.
	Intervals string `json:"commit_log_intervals"`
}

func main() {
	out := flag.String("out", "commitlog/testdata", "fixture root; each fixture goes to OUT/<name>/")
	only := flag.String("fixtures", "", "comma-separated fixture names (default all)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *only); err != nil {
		fmt.Fprintln(os.Stderr, "commitloggen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, only string) error {
	var results []result
	manifest := filepath.Join(out, "manifest.json")
	if b, err := os.ReadFile(manifest); err == nil && only != "" {
		if err := json.Unmarshal(b, &results); err != nil {
			return fmt.Errorf("read %s: %w", manifest, err)
		}
	}
	for _, f := range fixtures {
		if only != "" && !slices.Contains(strings.Split(only, ","), f.Name) {
			continue
		}
		r, err := generate(ctx, f, filepath.Join(out, f.Name))
		if err != nil {
			return fmt.Errorf("fixture %s: %w", f.Name, err)
		}
		results = slices.DeleteFunc(results, func(o result) bool { return o.Name == f.Name })
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b result) int { return strings.Compare(a.Name, b.Name) })
	b, _ := json.MarshalIndent(results, "", "  ")
	return os.WriteFile(manifest, append(b, '\n'), 0o644)
}

// nodeYAML is the commit log configuration of every fixture node: 1 MiB
// segments (the least commitlog_segment_size takes) keep an mmap segment
// small, and a 20 ms periodic sync cuts the workload into many sync
// sections of a few mutations each.
func nodeYAML(compression string) string {
	y := "commitlog_sync: periodic\ncommitlog_sync_period: 20ms\ncommitlog_segment_size: 1MiB\n"
	if compression != "" {
		y += "commitlog_compression:\n  - class_name: " + compression + "\n"
	}
	return y
}

func generate(ctx context.Context, f fixture, dst string) (result, error) {
	r := result{fixture: f}
	mode, err := cassandratest.ParseMode(f.Mode)
	if err != nil {
		return r, err
	}
	dir, err := os.MkdirTemp("", "sstf-commitloggen-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(os.Stderr, "%s: starting a %s node with %q\n", f.Name, mode, f.Compression)
	n, err := cassandratest.Start(ctx, cassandratest.Options{Mode: mode, Dir: dir, HeapMB: 512, ExtraYAML: nodeYAML(f.Compression)})
	if err != nil {
		return r, err
	}
	// The node is killed below; this only covers an early return.
	defer n.Kill()
	if r.TableID, r.Intervals, err = workload(ctx, n); err != nil {
		return r, err
	}
	r.Entries, r.Markers = rows+3, rows+2
	// Two sync periods and more: the last section is on disk.
	time.Sleep(time.Second)
	// NB: SIGKILL, not a drain: a drain flushes every table and then
	// deletes the segments, all clean. An mmap segment's pages outlive
	// the process in the page cache, and a compressed segment's sections
	// were written by its syncs.
	if err := n.Kill(); err != nil {
		return r, err
	}
	if r.Files, err = copySegments(filepath.Join(dir, "commitlog"), dst); err != nil {
		return r, err
	}
	return r, check(dst, r)
}

// check reads the copied segments back: every CRC must hold and the
// workload's entries must all be there.
func check(dir string, r result) error {
	id, err := hex.DecodeString(r.TableID)
	if err != nil {
		return err
	}
	segs, err := commitlog.ListDir(dir)
	if err != nil {
		return err
	}
	entries, markers := 0, 0
	for _, s := range segs {
		cr, err := commitlog.Open(s.Path, commitlog.Options{})
		if err != nil {
			return err
		}
		for cr.Next() {
			// A mutation of the table alone: a count of 1, then the
			// TableId (the schema mutation holds the id too).
			if m := cr.Entry().Mutation; len(m) > 17 && m[0] == 1 && bytes.Equal(m[1:17], id) {
				entries++
				if bytes.Contains(m, []byte("clfix-")) {
					markers++
				}
			}
		}
		err = cr.Err()
		cr.Close()
		if err != nil {
			return err
		}
	}
	if entries != r.Entries || markers != r.Markers {
		return fmt.Errorf("read back %d entries of the table, %d with values, want %d and %d", entries, markers, r.Entries, r.Markers)
	}
	return nil
}

// workload writes the fixture's mutations, flushes the table and returns
// its id and sstablemetadata's commit log intervals.
func workload(ctx context.Context, n *cassandratest.Node) (id, intervals string, err error) {
	s, err := n.Session()
	if err != nil {
		return "", "", err
	}
	defer s.Close()
	stmts := []string{
		"CREATE KEYSPACE " + keyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + keyspace + "." + table + " (k int, c int, v text, s set<text>, PRIMARY KEY (k, c))",
	}
	for _, q := range stmts {
		if err := s.Query(q).Exec(); err != nil {
			return "", "", fmt.Errorf("%s: %w", q, err)
		}
	}
	var uuid gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", keyspace, table).Scan(&uuid); err != nil {
		return "", "", fmt.Errorf("read table id: %w", err)
	}
	ins := "INSERT INTO " + keyspace + "." + table + " (k, c, v) VALUES (?, ?, ?)"
	for i := range rows {
		if err := s.Query(ins, i%30, i, fmt.Sprintf("clfix-row-%03d", i)).Exec(); err != nil {
			return "", "", fmt.Errorf("insert row %d: %w", i, err)
		}
	}
	more := []string{
		"INSERT INTO " + keyspace + "." + table + " (k, c, v) VALUES (1000, 0, 'clfix-ttl') USING TTL 86400",
		"UPDATE " + keyspace + "." + table + " SET s = s + {'clfix-set-a', 'clfix-set-b'} WHERE k = 1001 AND c = 0",
		"DELETE FROM " + keyspace + "." + table + " WHERE k = 29",
	}
	for _, q := range more {
		if err := s.Query(q).Exec(); err != nil {
			return "", "", fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := n.Flush(ctx, keyspace, table); err != nil {
		return "", "", err
	}
	data, err := filepath.Glob(filepath.Join(n.DataDir(), keyspace, table+"-"+hex.EncodeToString(uuid[:]), "*-Data.db"))
	if err != nil || len(data) != 1 {
		return "", "", fmt.Errorf("find the flushed Data.db: %v %v", data, err)
	}
	meta, err := n.SSTableMetadata(ctx, data[0])
	if err != nil {
		return "", "", err
	}
	m := regexp.MustCompile(`(?m)^Replay positions covered: (.*)$`).FindSubmatch(meta)
	if m == nil {
		return "", "", fmt.Errorf("no commit log intervals in sstablemetadata's report:\n%s", meta)
	}
	return hex.EncodeToString(uuid[:]), strings.TrimSpace(string(m[1])), nil
}

// copySegments copies every segment of the node's commit log directory
// into dst, cutting an mmap segment's zero tail (trimZeros).
func copySegments(src, dst string) ([]string, error) {
	if err := os.RemoveAll(dst); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "CommitLog-") || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), trimZeros(b), 0o644); err != nil {
			return nil, err
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// trimZeros cuts the zeros that end an mmap segment (it is created at
// commitlog_segment_size, zero-filled; segment files are never reused),
// keeping 64 zero bytes past the last non-zero byte, rounded up to 512.
// What a reader meets is unchanged: the last section is followed by the
// all-zero marker (the 64 bytes cover it and any zero bytes that end the
// last entry's CRC), where reading stops as it would in the full file.
func trimZeros(b []byte) []byte {
	end := len(b)
	for end > 0 && b[end-1] == 0 {
		end--
	}
	keep := min(len(b), (end+64+511)/512*512)
	return b[:keep]
}
