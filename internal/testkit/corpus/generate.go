package corpus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// Options configure Generate.
type Options struct {
	Out   string // corpus root; each mode writes Out/<mode>/
	Modes []cassandratest.Mode
	Scale Scale
	Log   io.Writer
	// Command is recorded in each MANIFEST.json (how the corpus was made).
	Command string
}

// Generate starts one node per mode, in turn, writes the datasets through
// it and exports the tables into Out/<mode>/.
func Generate(ctx context.Context, opt Options) error {
	for _, mode := range opt.Modes {
		fmt.Fprintf(opt.Log, "corpus: starting cassandra %s in mode %s\n", cassandratest.Version, mode)
		n, err := cassandratest.Start(ctx, cassandratest.Options{Mode: mode})
		if err != nil {
			return err
		}
		err = GenerateOn(ctx, n, filepath.Join(opt.Out, string(mode)), opt)
		if stopErr := n.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
		if err != nil {
			return fmt.Errorf("generate corpus in mode %s: %w", mode, err)
		}
	}
	return nil
}

// GenerateOn writes the datasets through a running node and exports them to
// dir, replacing what was there.
func GenerateOn(ctx context.Context, n *cassandratest.Node, dir string, opt Options) error {
	logf := func(format string, args ...any) {
		fmt.Fprintf(opt.Log, "corpus %s: "+format+"\n", append([]any{n.Mode}, args...)...)
	}
	s, err := n.Session()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := createSchema(s); err != nil {
		return err
	}
	if err := n.DisableAutoCompaction(ctx, Keyspace); err != nil {
		return err
	}
	var lastWrite time.Time
	for r := range Rounds {
		start := time.Now()
		if err := writeRound(s, r, opt.Scale); err != nil {
			return err
		}
		lastWrite = time.Now()
		if err := n.Flush(ctx, Keyspace); err != nil {
			return err
		}
		logf("round %d written and flushed in %s", r+1, time.Since(start).Round(time.Millisecond))
	}
	// The one-second TTLs of the last round must have expired when the
	// expected rows are read.
	if wait := time.Until(lastWrite.Add(2500 * time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear corpus dir: %w", err)
	}
	m := Manifest{
		CassandraVersion: releaseVersion(s),
		StorageMode:      string(n.Mode),
		Scale:            opt.Scale.Name,
		GeneratedAt:      time.Now().UTC().Format(time.RFC3339),
		Command:          opt.Command,
	}
	var dumps []dumpJob
	for _, t := range Tables {
		exported, err := exportTable(s, n, dir, t.Name)
		if err != nil {
			return err
		}
		dumps = append(dumps, exported...)
	}
	start := time.Now()
	if err := runDumps(ctx, n, dumps); err != nil {
		return err
	}
	logf("%d sstabledump runs in %s", len(dumps), time.Since(start).Round(time.Millisecond))
	m.SSTableVersions = versionsOf(dumps)
	return writeManifest(dir, m)
}

func createSchema(s *gocql.Session) error {
	stmts := []string{
		"DROP KEYSPACE IF EXISTS " + Keyspace,
		"CREATE KEYSPACE " + Keyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
	}
	for _, t := range Tables {
		stmts = append(stmts, t.Create...)
	}
	for _, q := range stmts {
		if err := s.Query(q).Exec(); err != nil {
			return fmt.Errorf("create corpus schema: %s: %w", q, err)
		}
	}
	return nil
}

// writeRound writes one round: tables in parallel, each table's statements
// in order (list appends and prepends depend on it).
func writeRound(s *gocql.Session, round int, sc Scale) error {
	var wg sync.WaitGroup
	errs := make([]error, len(Tables))
	for i, t := range Tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, q := range t.Round(round, sc) {
				if err := s.Query(q).Exec(); err != nil {
					errs[i] = fmt.Errorf("write %s round %d: %s: %w", t.Name, round+1, q, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func releaseVersion(s *gocql.Session) string {
	var v string
	if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
		return "unknown: " + err.Error()
	}
	return v
}
