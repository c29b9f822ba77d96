package loadgen

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// freshTarget is the freshness shape: each op writes a row nobody wrote
// before (its key made of the run's nonce and the op number) through CQL,
// at consistency ONE on the node CompareCQL names, then waits until a
// read through Flight returns it. Its latency runs from the write's
// acknowledgement (Result.Since) to the read that first returned the row:
// how far behind Cassandra a reader of the server is. A row not returned
// within FreshTimeout fails the op (errNotVisible).
//
// The reads are batched: one poller reads every waiting key in one
// command each FreshPoll, so a thousand writes waiting cost one read an
// interval, not a thousand, and the rig measures the server's staleness
// rather than its own load on it.
type freshTarget struct {
	s       *gocql.Session
	insert  string
	cols    []freshCol // the primary key: partition key columns, then clustering
	nKey    int        // how many of cols are the partition key
	names   [][]byte   // the partition key columns' JSON names
	nonce   uint64
	timeout time.Duration
	poll    *freshPoller
}

// freshCol is one primary key column the rig fills.
type freshCol struct{ name, cqlType string }

// errNotVisible fails an op whose row no read returned in time.
var errNotVisible = errors.New("not visible through Flight")

func newFreshTarget(s *gocql.Session, l *Locations, ts *TableSchema, cfg *Config) (*freshTarget, error) {
	t := &freshTarget{s: s, timeout: cfg.FreshTimeout, nKey: len(ts.Key)}
	for _, k := range ts.Key {
		t.cols = append(t.cols, freshCol{k.Name, k.CQLType})
		n, _ := json.Marshal(k.Name)
		t.names = append(t.names, n)
	}
	// The INSERT names its columns, so the clustering ones may come in
	// any order.
	for _, f := range ts.Arrow.Fields() {
		if meta(f, "cql.kind") == "clustering" {
			t.cols = append(t.cols, freshCol{f.Name, meta(f, "cql.type")})
		}
	}
	var names, marks []string
	for _, c := range t.cols {
		if !slices.Contains(freshTypes, c.cqlType) {
			return nil, fmt.Errorf("freshness: column %s is a %s: the rig writes keys of types %s", c.name, c.cqlType, strings.Join(freshTypes, ", "))
		}
		names, marks = append(names, quoteIdent(c.name)), append(marks, "?")
	}
	t.insert = "INSERT INTO " + quoteIdent(ts.Keyspace) + "." + quoteIdent(ts.Table) + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	h := fnv.New64a()
	binary.Write(h, binary.BigEndian, time.Now().UnixNano())
	binary.Write(h, binary.BigEndian, cfg.Seed)
	t.nonce = h.Sum64()
	ks, _ := json.Marshal(ts.Keyspace)
	tb, _ := json.Marshal(ts.Table)
	t.poll = &freshPoller{locs: l, schema: ts, every: cfg.FreshPoll, waiting: map[string]chan time.Time{},
		prefix: `{"version":1,"keyspace":` + string(ks) + `,"table":` + string(tb) + `,"keys":[`}
	return t, nil
}

// freshTypes are the key and clustering types the rig can make values of.
var freshTypes = []string{"text", "varchar", "ascii", "int", "bigint", "uuid", "timeuuid"}

func (t *freshTarget) Arm() string { return "freshness" }

// row is op's primary key: the CQL bind values, and the partition key as
// the JSON object a command names it by and eachKeyRow reads it back as
// (keyValue's literals).
func (t *freshTarget) row(op uint64) ([]any, string) {
	vals := make([]any, len(t.cols))
	lit := []byte{'{'}
	for i, c := range t.cols {
		h := fnv.New64a()
		binary.Write(h, binary.BigEndian, [3]uint64{t.nonce, op, uint64(i)})
		x := h.Sum64()
		var l string
		switch c.cqlType {
		case "int":
			vals[i], l = int32(x), strconv.FormatInt(int64(int32(x)), 10)
		case "bigint":
			vals[i], l = int64(x), `"`+strconv.FormatInt(int64(x), 10)+`"`
		case "timeuuid":
			u := gocql.TimeUUID() // unique: a clock sequence and node of its own
			vals[i], l = u, `"`+u.String()+`"`
		case "uuid":
			var u gocql.UUID
			binary.BigEndian.PutUint64(u[:8], t.nonce)
			binary.BigEndian.PutUint64(u[8:], x)
			u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80 // version 4, IETF variant
			vals[i], l = u, `"`+u.String()+`"`
		default: // text, varchar, ascii
			s := fmt.Sprintf("sstf-fresh-%016x-%d-%d", t.nonce, op, i)
			b, _ := json.Marshal(s)
			vals[i], l = s, string(b)
		}
		if i < t.nKey {
			if i > 0 {
				lit = append(lit, ',')
			}
			lit = append(append(append(lit, t.names[i]...), ':'), l...)
		}
	}
	return vals, string(append(lit, '}'))
}

func (t *freshTarget) Do(ctx context.Context, op uint64) (Result, error) {
	vals, key := t.row(op)
	if err := t.s.Query(t.insert, vals...).Consistency(gocql.One).ExecContext(ctx); err != nil {
		return Result{}, fmt.Errorf("write through cql: %w", err)
	}
	ack := time.Now()
	if err := t.poll.wait(ctx, key, t.timeout); err != nil {
		return Result{Since: ack}, err
	}
	return Result{Rows: 1, Since: ack}, nil
}

// freshPoller reads the keys ops wait for, all in one command, every
// interval, while any op waits.
type freshPoller struct {
	locs   *Locations
	schema *TableSchema
	every  time.Duration
	prefix string // the command up to its keys

	mu      sync.Mutex
	waiting map[string]chan time.Time // key → its op, told when a read returned it
	running bool
	lastErr error // the last read's failure, for the ops it fails
}

// freshBatch bounds the keys of one poll command (the server takes at
// most 10,000).
const freshBatch = 1000

// wait registers key and waits until a read returns it, timeout passes
// or ctx ends.
func (p *freshPoller) wait(ctx context.Context, key string, timeout time.Duration) error {
	seen := make(chan time.Time, 1)
	p.mu.Lock()
	p.waiting[key] = seen
	if !p.running {
		p.running = true
		go p.run()
	}
	p.mu.Unlock()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-seen:
		return nil
	case <-timer.C:
	case <-ctx.Done():
	}
	p.mu.Lock()
	delete(p.waiting, key)
	last := p.lastErr
	p.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wait for the row: %w", err)
	}
	if last != nil {
		return fmt.Errorf("%w within %s (last read: %v)", errNotVisible, timeout, last)
	}
	return fmt.Errorf("%w within %s", errNotVisible, timeout)
}

// run polls until no op waits.
func (p *freshPoller) run() {
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	for range tick.C {
		p.mu.Lock()
		keys := make([]string, 0, len(p.waiting))
		for k := range p.waiting {
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		for len(keys) > 0 {
			n := min(len(keys), freshBatch)
			err := p.read(keys[:n])
			p.mu.Lock()
			p.lastErr = err
			p.mu.Unlock()
			keys = keys[n:]
		}
	}
}

// read plans one command of keys and reads its endpoints, telling each
// waiting op whose row comes back.
func (p *freshPoller) read(keys []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := p.prefix + strings.Join(keys, ",") + "]}"
	info, err := p.locs.planner.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(cmd)})
	if err != nil {
		return fmt.Errorf("get flight info: %w", err)
	}
	var errs []error
	for _, ep := range info.Endpoint {
		_, err := p.locs.each(ctx, ep, func(c flight.Client) (Result, int, error) {
			batches, err := eachKeyRow(ctx, c, ep.Ticket, p.schema, nil, func(lit []byte, _ []any, _ bool, _ *ClusteringValue) {
				now := time.Now()
				p.mu.Lock()
				if seen := p.waiting[string(lit)]; seen != nil {
					seen <- now
					delete(p.waiting, string(lit))
				}
				p.mu.Unlock()
			})
			return Result{}, batches, err
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
