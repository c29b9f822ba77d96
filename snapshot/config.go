package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// Mode is how a query's SSTables are held still.
type Mode string

const (
	// Hardlink links every live SSTable of a table into a directory of
	// ours on the same filesystem: a compaction that deletes Cassandra's
	// names leaves ours, so an epoch's files never change under a scan.
	Hardlink Mode = "hardlink"
	// Live reads Cassandra's directory directly, with the same listing
	// rules and retries, holding files open instead of linked (for
	// development, and for data directories that never change).
	Live Mode = "live"
	// Sidecar takes each epoch as a Cassandra snapshot through Apache
	// Cassandra Sidecar and reads it over HTTP (sidecarmode.go);
	// Config.Sidecar is its client.
	Sidecar Mode = "sidecar"
)

// Config configures a Manager. NewManager applies the defaults noted and
// refuses values that cannot work (resolve, below, is the one place for
// both), so a zero Config with a DataDir works.
type Config struct {
	// DataDir is Cassandra's data directory, <keyspace>/<table>-<id>/:
	// required in Hardlink and Live mode, unused (and refused) in Sidecar
	// mode, which has none.
	DataDir string
	// Mode defaults to Sidecar when a Sidecar client is given, else to
	// Hardlink.
	Mode Mode
	// Dir is where Hardlink mode keeps its epochs: on DataDir's
	// filesystem, outside it (default: sstable-flight-snapshots beside
	// DataDir, in its parent directory); in Sidecar mode, where the
	// journal of our Cassandra snapshots is kept (default:
	// sstable-flight-sidecar in the temporary directory). Live mode has
	// none.
	Dir string
	// Window is how long queries share one epoch before the next query
	// looks for new SSTables: the staleness bound a flush adds to. Zero
	// takes the mode's default, DefaultWindow, or DefaultSidecarWindow in
	// Sidecar mode, where every new epoch flushes the table.
	Window time.Duration
	// Grace keeps a superseded epoch this long after its last use
	// (default DefaultGrace), so the splits of a query planned on it can
	// still run.
	Grace time.Duration
	// PinnedCap, when > 0, caps the bytes held only by our links
	// (Cassandra deleted its names): above it, superseded epochs retire
	// without waiting for the grace period. Zero: no cap.
	PinnedCap int64
	// Now is the clock of every window, grace and age (default
	// time.Now).
	Now func() time.Time
	// Open opens an SSTable (default sstable.Open with CRC checks).
	Open func(path string) (*sstable.Reader, error)
	// Sidecar is Sidecar mode's client: epochs are Cassandra snapshots
	// read over HTTP (see sidecarmode.go). OpenFS opens an SSTable through
	// its FS (default sstable.Open with CRC checks).
	Sidecar *sidecar.Client
	OpenFS  func(path string, fsys sstable.FS) (*sstable.Reader, error)
	// Unflushed, when set, adds each table's unflushed writes (the
	// commit log's) to its epochs; nil: epochs are flushed data only.
	// Not in Sidecar mode, whose epochs are snapshots Cassandra flushed.
	Unflushed Unflushed
}

// Config's defaults.
const (
	DefaultWindow = 3 * time.Second
	// DefaultSidecarWindow is Sidecar mode's: each new epoch is a
	// Cassandra snapshot, which flushes the table first, so queries must
	// not cause one every few seconds.
	DefaultSidecarWindow = 30 * time.Second
	DefaultGrace         = 30 * time.Second
)

// DefaultDir is Hardlink mode's default snapshot directory for dataDir.
func DefaultDir(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	return filepath.Join(filepath.Dir(abs), "sstable-flight-snapshots")
}

// DefaultSidecarDir is Sidecar mode's default journal directory.
func DefaultSidecarDir() string { return filepath.Join(os.TempDir(), "sstable-flight-sidecar") }

// ConfigError is a Config value NewManager refuses. Field is spelled as
// in Config, Value as given (empty when the field is missing), so a
// caller can name the flag that set it.
type ConfigError struct {
	Field, Value, Reason string
}

func (e *ConfigError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("config %s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("config %s %s: %s", e.Field, e.Value, e.Reason)
}

// resolve applies the defaults and checks every value: the one place
// either happens. It is idempotent, so a resolved Config passes again.
func (c *Config) resolve() error {
	if c.Mode == "" {
		c.Mode = Hardlink
		if c.Sidecar != nil {
			c.Mode = Sidecar
		}
	}
	switch c.Mode {
	case Hardlink, Live:
		if c.Sidecar != nil {
			return &ConfigError{"Sidecar", "", fmt.Sprintf("a Sidecar client is only for %s mode, not %s", Sidecar, c.Mode)}
		}
		if c.DataDir == "" {
			return &ConfigError{"DataDir", "", fmt.Sprintf("required in %s mode (only sidecar mode reads none): Cassandra's data directory, e.g. /var/lib/cassandra/data", c.Mode)}
		}
		if st, err := os.Stat(c.DataDir); err != nil || !st.IsDir() {
			return &ConfigError{"DataDir", strconv.Quote(c.DataDir), "not a readable directory"}
		}
		// Resolved once, here: the snapshot directory is checked against
		// the directory itself, not a name of it, and listings start
		// from it (a data directory that is a link onto another disk is
		// common; links below it are never followed, see skipLink).
		resolved, err := resolvePath(c.DataDir)
		if err != nil {
			return &ConfigError{"DataDir", strconv.Quote(c.DataDir), "resolve: " + err.Error()}
		}
		c.DataDir = resolved
	case Sidecar:
		if c.Sidecar == nil {
			return &ConfigError{"Sidecar", "", "required in sidecar mode: the client of the node's Cassandra Sidecar"}
		}
		if c.DataDir != "" {
			return &ConfigError{"DataDir", strconv.Quote(c.DataDir), "not read in sidecar mode, which reads SSTables through Sidecar only"}
		}
		if c.Unflushed != nil {
			return &ConfigError{"Unflushed", "", "not read in sidecar mode, whose epochs are snapshots Cassandra flushed: no commit log is read"}
		}
	default:
		return &ConfigError{"Mode", strconv.Quote(string(c.Mode)), fmt.Sprintf("want %s, %s or %s", Hardlink, Live, Sidecar)}
	}
	switch {
	case c.Window < 0:
		return &ConfigError{"Window", c.Window.String(), fmt.Sprintf("must not be negative (0: %v, or %v in sidecar mode)", DefaultWindow, DefaultSidecarWindow)}
	case c.Window == 0 && c.Mode == Sidecar:
		c.Window = DefaultSidecarWindow
	case c.Window == 0:
		c.Window = DefaultWindow
	}
	if c.Grace < 0 {
		return &ConfigError{"Grace", c.Grace.String(), fmt.Sprintf("must not be negative (0: %v)", DefaultGrace)}
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.PinnedCap < 0 {
		return &ConfigError{"PinnedCap", strconv.FormatInt(c.PinnedCap, 10), "must not be negative (0: no cap)"}
	}
	if c.Dir == "" {
		switch c.Mode {
		case Hardlink:
			c.Dir = DefaultDir(c.DataDir)
		case Sidecar:
			c.Dir = DefaultSidecarDir()
		}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Open == nil {
		c.Open = func(path string) (*sstable.Reader, error) { return sstable.Open(path, sstable.Options{}) }
	}
	if c.OpenFS == nil {
		c.OpenFS = func(path string, fsys sstable.FS) (*sstable.Reader, error) {
			return sstable.Open(path, sstable.Options{FS: fsys})
		}
	}
	return nil
}
