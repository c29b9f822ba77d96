package corpus

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// Files written next to a table's SSTables.
const (
	SchemaFile   = "schema.cql"
	ExpectedFile = "expected.json"
	DumpDir      = "sstabledump"
	MetadataDir  = "sstablemetadata"
)

type dumpJob struct {
	data string // Data.db inside the node
	out  string // sstabledump JSON in the corpus
	meta string // sstablemetadata report in the corpus
}

// exportTable copies one table's directory out of the node's data directory
// and writes its schema and expected rows. It returns the sstabledump work.
func exportTable(s *gocql.Session, n *cassandratest.Node, root, table string) ([]dumpJob, error) {
	// NB: the directory is named by the table id from the schema. Table ids
	// are time-based UUIDs whose hex does not sort by time, so a directory
	// picked by name would be wrong after a drop and re-create.
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", Keyspace, table).Scan(&id); err != nil {
		return nil, fmt.Errorf("read id of %s.%s: %w", Keyspace, table, err)
	}
	dirName := table + "-" + hex.EncodeToString(id[:])
	src := filepath.Join(n.DataDir(), Keyspace, dirName)
	dst := filepath.Join(root, Keyspace, dirName)
	for _, sub := range []string{DumpDir, MetadataDir} {
		if err := os.MkdirAll(filepath.Join(dst, sub), 0o755); err != nil {
			return nil, fmt.Errorf("create corpus table dir: %w", err)
		}
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("list table dir: %w", err)
	}
	var jobs []dumpJob
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue // backups/ and snapshots/ are not part of the live set
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return nil, err
		}
		if m := dataFileRE.FindStringSubmatch(e.Name()); m != nil {
			prefix := strings.TrimSuffix(e.Name(), "-Data.db")
			jobs = append(jobs, dumpJob{
				data: filepath.Join(src, e.Name()),
				out:  filepath.Join(dst, DumpDir, prefix+".json"),
				meta: filepath.Join(dst, MetadataDir, prefix+".txt"),
			})
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("export %s.%s: no Data.db in %s", Keyspace, table, src)
	}
	schema, err := describeTable(s, table)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dst, SchemaFile), []byte(schema), 0o644); err != nil {
		return nil, fmt.Errorf("write schema: %w", err)
	}
	exp, err := readExpected(s, table)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(exp, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode expected rows of %s: %w", table, err)
	}
	if err := os.WriteFile(filepath.Join(dst, ExpectedFile), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write expected rows: %w", err)
	}
	return jobs, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy sstable component: %w", err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy sstable component: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy sstable component %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copy sstable component %s: %w", dst, err)
	}
	return nil
}

// describeTable renders the table's schema as Cassandra itself describes it
// from system_schema (DESCRIBE ... WITH INTERNALS, which adds the table id
// and dropped columns): the keyspace, the user types the table uses
// (transitively), then the table.
func describeTable(s *gocql.Session, table string) (string, error) {
	iter := s.Query("DESCRIBE KEYSPACE " + Keyspace + " WITH INTERNALS").Iter()
	var ks, typ, name, stmt string
	var keyspace, tableStmt string
	types := map[string]string{}
	var typeOrder []string
	for iter.Scan(&ks, &typ, &name, &stmt) {
		switch typ {
		case "keyspace":
			keyspace = stmt
		case "type":
			types[name] = stmt
			typeOrder = append(typeOrder, name)
		case "table":
			if name == table {
				tableStmt = stmt
			}
		}
	}
	if err := iter.Close(); err != nil {
		return "", fmt.Errorf("describe keyspace %s: %w", Keyspace, err)
	}
	if tableStmt == "" {
		return "", fmt.Errorf("describe %s.%s: table not found", Keyspace, table)
	}
	used := map[string]bool{}
	for changed := true; changed; {
		changed = false
		text := tableStmt
		for u := range used {
			text += types[u]
		}
		for t := range types {
			if !used[t] && regexp.MustCompile(`\b`+regexp.QuoteMeta(t)+`\b`).MatchString(stripCreate(text, types)) {
				used[t], changed = true, true
			}
		}
	}
	var b strings.Builder
	b.WriteString(keyspace + "\n\n")
	// DESCRIBE lists types so that each follows the types it uses.
	for _, t := range typeOrder {
		if used[t] {
			b.WriteString(types[t] + "\n\n")
		}
	}
	b.WriteString(tableStmt + "\n")
	return b.String(), nil
}

// stripCreate removes "CREATE TYPE ks.name" headers so that a type is found
// only where it is used, not where it is defined.
func stripCreate(text string, types map[string]string) string {
	for t := range types {
		text = strings.ReplaceAll(text, "CREATE TYPE "+Keyspace+"."+t+" ", "")
	}
	return text
}

// runDumps runs Cassandra's sstabledump and sstablemetadata on every
// Data.db, two files at a time (one JVM per run; the machine has two cores).
func runDumps(ctx context.Context, n *cassandratest.Node, jobs []dumpJob) error {
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].out < jobs[j].out })
	work := make(chan dumpJob)
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				out, err := n.SSTableDump(ctx, j.data)
				if err == nil && !json.Valid(out) {
					err = fmt.Errorf("sstabledump %s: output is not JSON", j.data)
				}
				if err == nil {
					err = os.WriteFile(j.out, out, 0o644)
				}
				if err == nil {
					var meta []byte
					if meta, err = n.SSTableMetadata(ctx, j.data); err == nil {
						err = os.WriteFile(j.meta, meta, 0o644)
					}
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}
