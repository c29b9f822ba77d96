package fresh

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/overlay"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// Config configures a Log.
type Config struct {
	// Dir is the node's commit log directory.
	Dir string
	// MaxBytes bounds the commit log entries held (overlay.Config.MaxBytes;
	// 0: overlay.DefaultMaxBytes).
	MaxBytes int64
	// PollInterval is how often the log is read for new writes (default
	// DefaultPollInterval): what it adds to a write's visibility, beside
	// the snapshot window.
	PollInterval time.Duration
	// Catalog gives the node's schema (the tables' ids and columns);
	// Sessions the session system.local is read over. Both are the
	// server's own.
	Catalog  Catalog
	Sessions catalog.Sessions
	Logger   *slog.Logger
}

// Catalog is what a Log needs of catalog.Catalog.
type Catalog interface {
	Schema() *catalog.Schema
	Refresh(ctx context.Context) error
}

// DefaultPollInterval is Config.PollInterval's default.
const DefaultPollInterval = 250 * time.Millisecond

// nodeInterval is how often system.local's host id and truncations are
// read again, and schemaRetry the least time between two schema reads
// that entries the schema could not decode ask for.
const (
	nodeInterval = 5 * time.Second
	schemaRetry  = time.Second
	queryTimeout = 10 * time.Second
)

// Log follows the node's commit log for the server (package doc).
type Log struct {
	cfg Config
	ov  *overlay.Overlay

	mu      sync.Mutex
	node    nodeState
	nodeOK  bool
	nodeGen uint64 // changes when node does
	pollErr error  // the last Poll's, nil after a good one

	stop chan struct{}
	done chan struct{}
}

// ErrNoDir is Start's error when the commit log directory does not exist.
var ErrNoDir = errors.New("no commit log directory")

// Start checks that cfg.Dir is a readable directory and follows it in
// the background until Close.
func Start(cfg Config) (*Log, error) {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Catalog == nil || cfg.Sessions == nil {
		return nil, fmt.Errorf("read the commit log %s: the node's schema and host id are read over CQL: give --cassandra", cfg.Dir)
	}
	fi, err := os.Stat(cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read the commit log %s: %w", cfg.Dir, ErrNoDir)
	}
	if err != nil {
		return nil, fmt.Errorf("read the commit log: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("read the commit log %s: not a directory", cfg.Dir)
	}
	if _, err := commitlog.ListDir(cfg.Dir); err != nil {
		return nil, fmt.Errorf("read the commit log: %w", err)
	}
	l := &Log{cfg: cfg, ov: overlay.New(overlay.Config{Dir: cfg.Dir, MaxBytes: cfg.MaxBytes}),
		stop: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l, nil
}

// Close stops following the log.
func (l *Log) Close() {
	close(l.stop)
	<-l.done
}

// run polls the log until Close. It does not poll before a schema was
// read: every entry would wait for it, pending.
func (l *Log) run() {
	defer close(l.done)
	t := time.NewTicker(l.cfg.PollInterval)
	defer t.Stop()
	var (
		version     string    // the schema's version the overlay has
		nodeRead    time.Time // when system.local was last read
		schemaAsked time.Time // when pending entries last asked for the schema
	)
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		if now.Sub(nodeRead) >= nodeInterval {
			nodeRead = now
			l.readNode()
		}
		sch := l.cfg.Catalog.Schema()
		if sch == nil {
			continue
		}
		if sch.Version != version {
			version = sch.Version
			l.ov.SetTables(overlayTables(sch))
		}
		l.poll()
		if l.ov.Stats().Pending > 0 && now.Sub(schemaAsked) >= schemaRetry {
			// Entries of a table or column the schema lacks: it was
			// probably changed a moment ago. Read it now; the next Poll
			// decodes them again with it.
			schemaAsked = now
			l.refreshSchema()
			if sch := l.cfg.Catalog.Schema(); sch != nil {
				version = sch.Version
				l.ov.SetTables(overlayTables(sch))
			}
		}
	}
}

func (l *Log) poll() {
	err := l.ov.Poll()
	l.mu.Lock()
	changed := (err == nil) != (l.pollErr == nil)
	l.pollErr = err
	l.mu.Unlock()
	switch {
	case changed && err != nil:
		l.cfg.Logger.Warn("commit log: cannot read it whole; tables are served from their SSTables only until the damaged segment is gone", "dir", l.cfg.Dir, "err", err)
	case changed:
		l.cfg.Logger.Info("commit log: read whole again", "dir", l.cfg.Dir)
	}
}

func (l *Log) refreshSchema() {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	if err := l.cfg.Catalog.Refresh(ctx); err != nil {
		l.cfg.Logger.Debug("commit log: read the schema for entries it could not decode", "err", err)
	}
}

// readNode reads the host id and truncations; a failure keeps the last
// read (they change only with a truncation).
func (l *Log) readNode() {
	s, err := l.cfg.Sessions.Session()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	st, err := readNode(ctx, s)
	if err != nil {
		l.cfg.Logger.Debug("commit log: read system.local", "err", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.nodeOK || st.host != l.node.host || !sameTruncations(st.truncated, l.node.truncated) {
		l.nodeGen++
	}
	l.node, l.nodeOK = st, true
}

func sameTruncations(a, b map[commitlog.TableID]commitlog.Position) bool {
	if len(a) != len(b) {
		return false
	}
	for id, p := range a {
		if q, ok := b[id]; !ok || q != p {
			return false
		}
	}
	return true
}

// Generation is snapshot.Unflushed's: it changes with the table's
// updates, with what the log lost, and with the node's host id or
// truncations.
func (l *Log) Generation(td snapshot.TableDir) uint64 {
	l.mu.Lock()
	g := l.nodeGen
	l.mu.Unlock()
	if id, err := commitlog.ParseTableID(td.ID); err == nil {
		g += l.ov.Generation(id)
	}
	return g
}

// Runs is snapshot.Unflushed's: the table's unflushed writes that
// readers' SSTables do not hold, sealed into runs.
func (l *Log) Runs(td snapshot.TableDir, readers []*sstable.Reader) ([]*sstable.Reader, snapshot.Freshness) {
	id, err := commitlog.ParseTableID(td.ID)
	if err != nil {
		return nil, snapshot.Freshness{FlushedOnly: "the table's directory names no table id"}
	}
	l.mu.Lock()
	st, ok := l.node, l.nodeOK
	l.mu.Unlock()
	if !ok {
		return nil, snapshot.Freshness{FlushedOnly: "this node's host id is not read yet (no CQL session): which writes its SSTables hold is not known"}
	}
	stats := make([]*metadata.StatsMetadata, len(readers))
	for i, r := range readers {
		stats[i] = &r.Stats.Stats
	}
	trunc, ok := st.truncated[id]
	if !ok {
		trunc = commitlog.NoPosition
	}
	persisted, _ := commitlog.NewPersisted(st.host, stats, trunc)
	runs, through, err := l.ov.Runs(id, persisted)
	if err != nil {
		return nil, snapshot.Freshness{FlushedOnly: err.Error()}
	}
	return runs, snapshot.Freshness{Through: fmt.Sprintf("%d:%d", through.SegmentID, through.Offset)}
}

// Stats returns the overlay's state, for metrics.
func (l *Log) Stats() overlay.Stats { return l.ov.Stats() }

// MaxBytes is the overlay's bound.
func (l *Log) MaxBytes() int64 {
	if l.cfg.MaxBytes > 0 {
		return l.cfg.MaxBytes
	}
	return overlay.DefaultMaxBytes
}

var _ snapshot.Unflushed = (*Log)(nil)
