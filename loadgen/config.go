package loadgen

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
)

// Shapes of one op.
const (
	ShapePoint = "point" // GetFlightInfo with one key, DoGet of its endpoint
	ShapeIn    = "in"    // K distinct keys per op, every endpoint read
	ShapeLimit = "limit" // limit K, one endpoint
	ShapeScan  = "scan"  // the whole table in ScanSplits endpoints, read concurrently
	ShapeRange = "range" // a random token range of 1/RangeFraction of the ring
	ShapeSlice = "slice" // one key, rows between two of its sampled clustering values
	ShapeMix   = "mix"   // each op one of Mix's shapes, drawn by weight
	// ShapeFresh writes a new row through CQL (CompareCQL) and reads it
	// through Flight until it is there: latency is its staleness.
	ShapeFresh = "freshness"
)

// Defaults of the command's flags that Config leaves to the caller.
const (
	DefaultStep   = 10 * time.Second
	DefaultWarmup = 2 * time.Second
)

// Shapes lists the shapes in the order the help text gives them.
var Shapes = []string{ShapePoint, ShapeIn, ShapeSlice, ShapeLimit, ShapeScan, ShapeRange, ShapeFresh, ShapeMix}

// needsKeys reports whether a shape reads sampled partition keys.
func needsKeys(shape string) bool {
	return shape == ShapePoint || shape == ShapeIn || shape == ShapeSlice
}

// Config is one run of the rig. Zero values take the defaults noted.
type Config struct {
	Addr     string // Flight server host:port (default 127.0.0.1:8815)
	Keyspace string
	Table    string
	Shape    string // one of Shapes (default point)

	// Ramp is the concurrency of each step: closed-loop workers, or in
	// open-loop mode (Rate > 0) the most ops in flight at once.
	Ramp   []int         // default [1]
	Step   time.Duration // measured time per step (default 10 s)
	Warmup time.Duration // run before each step and not recorded; 0 means none
	// Rate > 0 switches to open loop: ops start at fixed intervals and
	// latency counts from the intended start, so a server that falls
	// behind shows it instead of slowing the load down (coordinated
	// omission).
	Rate float64
	// Drain bounds how long ops started in a step may run after it ends
	// before they are cancelled (default 30 s).
	Drain time.Duration

	Seed          uint64 // makes key choice and token ranges reproducible
	Keys          int    // partition keys to sample for point and in (default 10,000)
	K             int    // keys per op for in, rows for limit (default 10)
	ScanSplits    int    // endpoints of a scan (default 4)
	RangeFraction int    // a range op covers 1/RangeFraction of the ring (default 64)
	// Fanout bounds the concurrent DoGets of one op; 0 reads every
	// endpoint at once, as a parallel client does.
	Fanout int
	// Direct sends the command of a point, in, slice or limit op straight
	// to DoGet as its ticket (one round trip) instead of GetFlightInfo
	// then DoGet: the server plans it in the same call.
	Direct bool
	// Mix is the weighted shapes of ShapeMix, e.g. point:80,slice:15,scan:5
	// (see ParseMix); op i's shape is drawn from the seed and i, so both
	// arms run the same shape for the same op.
	Mix []MixEntry

	Token string // bearer token for the Flight server, and for its /metrics
	// CAFile is a PEM file of the CA that signed the servers'
	// certificates: with it the planning connection and every grpc+tls
	// location are dialled with TLS verified against it (grpc+tls
	// locations without it: the system's roots).
	CAFile      string
	MetricsURL  string // the server's /metrics; empty skips server figures
	DialOptions []grpc.DialOption

	CompareCQL  string // Cassandra host:port; empty skips the CQL arm
	CQLUser     string // with CQLPassword, a PasswordAuthenticator
	CQLPassword string
	CQLPageSize int // scan page size (default 5000)

	// FreshTimeout bounds how long a freshness op waits for its row
	// (default 30 s); FreshPoll is how often the waiting rows are read
	// (default 10 ms): the resolution of the figures.
	FreshTimeout time.Duration
	FreshPoll    time.Duration

	// BeforeStep, when set, runs before each step's warm-up with the arm
	// ("flight" or "cql") and the step's index: loadgen/flightbench
	// starts a server CPU profile there, so it covers one step and
	// nothing else.
	BeforeStep func(arm string, index int)

	Out      io.Writer // the readable tables; nil discards them
	Progress io.Writer // the progress line during long steps; nil: none
	JSONL    io.Writer // one JSON object per step; nil: none
	CSV      io.Writer // one CSV row per step; nil: none
}

// resolve applies the defaults and checks every value: the one place
// either happens, as flightserver's and snapshot's Configs do. It is
// idempotent. Unlike theirs it reports every bad value at once (a
// command line often has several), not the first.
func (c *Config) resolve() error {
	c.defaults()
	return c.check()
}

func (c *Config) defaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8815"
	}
	if c.Shape == "" {
		c.Shape = ShapePoint
	}
	if len(c.Ramp) == 0 {
		c.Ramp = []int{1}
	}
	if c.Step <= 0 {
		c.Step = DefaultStep
	}
	if c.Drain <= 0 {
		c.Drain = 30 * time.Second
	}
	if c.Keys <= 0 {
		c.Keys = 10_000
	}
	if c.K <= 0 {
		c.K = 10
	}
	if c.ScanSplits <= 0 {
		c.ScanSplits = 4
	}
	if c.RangeFraction <= 0 {
		c.RangeFraction = 64
	}
	if c.CQLPageSize <= 0 {
		c.CQLPageSize = 5000
	}
	if c.FreshTimeout <= 0 {
		c.FreshTimeout = 30 * time.Second
	}
	if c.FreshPoll <= 0 {
		c.FreshPoll = 10 * time.Millisecond
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
}

func (c *Config) check() error {
	var errs []error
	if c.Keyspace == "" || c.Table == "" {
		errs = append(errs, errors.New("a keyspace and a table are required"))
	}
	known := false
	for _, s := range Shapes {
		known = known || s == c.Shape
	}
	if !known {
		errs = append(errs, fmt.Errorf("shape %q: want one of %s", c.Shape, strings.Join(Shapes, ", ")))
	}
	for _, n := range c.Ramp {
		if n < 1 {
			errs = append(errs, fmt.Errorf("ramp step %d: concurrency must be at least 1", n))
		}
	}
	if c.Rate < 0 {
		errs = append(errs, fmt.Errorf("rate %g: must not be negative", c.Rate))
	}
	if c.Warmup < 0 {
		errs = append(errs, fmt.Errorf("warm-up %s: must not be negative", c.Warmup))
	}
	if c.ScanSplits > 4096 {
		errs = append(errs, fmt.Errorf("scan splits %d: the server plans at most 4096", c.ScanSplits))
	}
	if c.Shape == ShapeMix && len(c.Mix) == 0 {
		errs = append(errs, errors.New("shape mix: no mix given"))
	}
	// A mix draws read shapes: not itself, nor the freshness shape,
	// which writes.
	mixable := slices.DeleteFunc(slices.Clone(Shapes), func(s string) bool { return s == ShapeMix || s == ShapeFresh })
	for _, m := range c.Mix {
		if !slices.Contains(mixable, m.Shape) {
			errs = append(errs, fmt.Errorf("mix: shape %q: want one of %s", m.Shape, strings.Join(mixable, ", ")))
		}
	}
	if c.Shape == ShapeFresh && c.CompareCQL == "" {
		errs = append(errs, errors.New("shape freshness: writes go through CQL: give the node's host:port (--compare-cql)"))
	}
	if c.K > 10_000 && c.Shape == ShapeIn {
		errs = append(errs, fmt.Errorf("k %d: the server takes at most 10,000 keys per command", c.K))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("check config: %w", err)
	}
	return nil
}

// MixEntry is one shape of a mix and its weight.
type MixEntry struct {
	Shape  string
	Weight int
}

// ParseMix reads "shape:weight,...", e.g. "point:80,slice:15,scan:5".
func ParseMix(s string) ([]MixEntry, error) {
	var out []MixEntry
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, w, ok := strings.Cut(f, ":")
		n, err := strconv.Atoi(w)
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("read mix %q: %q is not shape:positive-weight", s, f)
		}
		out = append(out, MixEntry{Shape: name, Weight: n})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read mix %q: no shape", s)
	}
	return out, nil
}

// ParseRamp reads a comma-separated list of concurrencies, e.g. "1,2,4".
func ParseRamp(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("read ramp %q: %q is not a positive integer", s, f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read ramp %q: no step", s)
	}
	return out, nil
}

// ParseTable splits "keyspace.table".
func ParseTable(s string) (keyspace, table string, err error) {
	ks, t, ok := strings.Cut(s, ".")
	if !ok || ks == "" || t == "" || strings.Contains(t, ".") {
		return "", "", fmt.Errorf("read table %q: want keyspace.table", s)
	}
	return ks, t, nil
}
