package flightserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// service implements the Flight RPCs over the tables of one data
// directory.
type service struct {
	flight.BaseFlightServer

	cfg     Config
	mem     memory.Allocator
	tables  *tables
	adm     *admission
	metrics *metrics
	log     *slog.Logger
	headers schemaHeaders // DoGet streams' schema messages
}

// command reads a descriptor: PATH [keyspace, table] or a JSON command.
func command(d *flight.FlightDescriptor) (*Command, error) {
	if d == nil {
		return nil, invalid(fmt.Errorf("read descriptor: none"))
	}
	switch d.Type {
	case flight.DescriptorPATH:
		if len(d.Path) != 2 {
			return nil, invalid(fmt.Errorf("read descriptor: path %q, want [keyspace, table]", d.Path))
		}
		return &Command{Version: CommandVersion, Keyspace: d.Path[0], Table: d.Path[1]}, nil
	case flight.DescriptorCMD:
		c, err := ParseCommand(d.Cmd)
		if err != nil {
			return nil, invalid(err)
		}
		return c, nil
	}
	return nil, invalid(fmt.Errorf("read descriptor: unknown type %v", d.Type))
}

func (s *service) GetSchema(ctx context.Context, d *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	c, err := command(d)
	if err != nil {
		return nil, err
	}
	l, err := s.tables.acquire(ctx, c.Keyspace, c.Table)
	if err != nil {
		return nil, err
	}
	defer l.release()
	proj, err := l.t.projection(c.Columns)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: l.t.serializedSchema(proj, s.mem)}, nil
}

func (s *service) GetFlightInfo(ctx context.Context, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	start := time.Now()
	defer func() { s.metrics.phase.WithLabelValues("plan").Observe(time.Since(start).Seconds()) }()
	c, err := command(d)
	if err != nil {
		return nil, err
	}
	return s.plan(ctx, c, d)
}

// plan returns the endpoints of a command: one per partition key, or
// token-range splits that cover the requested range exactly once.
func (s *service) plan(ctx context.Context, c *Command, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.planTickets(ctx, c, true)
	if err != nil {
		return nil, err
	}
	info := &flight.FlightInfo{Schema: p.schema, FlightDescriptor: d, TotalBytes: -1, TotalRecords: p.rows, Ordered: true}
	for _, t := range p.tickets {
		info.Endpoint = append(info.Endpoint, endpoint(t))
	}
	return info, nil
}

// planned is a command's tickets, its schema (when asked for) and its
// row estimate.
type planned struct {
	tickets []*Ticket
	schema  []byte
	rows    int64
}

// planTickets plans a command. A command sent to DoGet as its ticket
// needs no serialized schema, and its ticket is used as it is, not
// encoded and read back.
func (s *service) planTickets(ctx context.Context, c *Command, withSchema bool) (*planned, error) {
	l, err := s.tables.acquire(ctx, c.Keyspace, c.Table)
	if err != nil {
		return nil, err
	}
	defer l.release()
	proj, err := l.t.projection(c.Columns)
	if err != nil {
		return nil, err
	}
	p := &planned{}
	if withSchema {
		p.schema = l.t.serializedSchema(proj, s.mem)
	}
	now := s.cfg.Now().Unix()
	partitions, rows := estimate(l.readers())
	perPartition := float64(rows) / math.Max(1, float64(partitions))
	if len(c.Keys) > 0 {
		keys, err := encodeKeys(l.t, c.Keys)
		if err != nil {
			return nil, invalid(err)
		}
		sl, err := encodeSlice(l.t, c.Clustering)
		if err != nil {
			return nil, invalid(err)
		}
		// Keys in token order, as CQL returns an IN, grouped so that an
		// IN list is one stream (or a few for long lists, for clients
		// that read endpoints in parallel).
		sortByToken(keys)
		for lo := 0; lo < len(keys); lo += keysPerTicket {
			t := newTicket(c, now, l.e.ID)
			t.Keys, t.Slice = keys[lo:min(lo+keysPerTicket, len(keys))], sl
			p.tickets = append(p.tickets, t)
		}
		p.rows = int64(math.Ceil(perPartition * float64(len(keys))))
	} else {
		start, end := int64(0), int64(0)
		fraction := 1.0
		if r := c.TokenRange; r != nil {
			start, end = int64(r.Start), int64(r.End)
			if start != end {
				fraction = ringFraction(start, end)
			}
		}
		n := splitCount(c.Splits, int64(float64(partitions)*fraction))
		if c.Limit > 0 && c.Splits == 0 {
			n = 1 // one stream stops after limit rows; more would each read limit rows
		}
		for _, r := range splitRange(start, end, n) {
			t := newTicket(c, now, l.e.ID)
			t.Range = &[2]Token{Token(r[0]), Token(r[1])}
			p.tickets = append(p.tickets, t)
		}
		p.rows = int64(float64(rows) * fraction)
	}
	if c.Limit > 0 {
		p.rows = min(p.rows, c.Limit*int64(len(p.tickets)))
	}
	return p, nil
}

// ringFraction is the share of the ring in (start, end].
func ringFraction(start, end int64) float64 {
	w := float64(end) - float64(start)
	if w < 0 {
		w += math.Exp2(64)
	}
	return w / math.Exp2(64)
}

// encodeKeys serializes the partition keys of a command: each must bind
// every partition key column. Duplicates are read once.
func encodeKeys(t *table, keys []map[string]json.RawMessage) ([][]byte, error) {
	var out [][]byte
	seen := map[string]bool{}
	parts := make([][]byte, t.keyComponents)
	for i, k := range keys {
		if len(k) != t.keyComponents {
			return nil, fmt.Errorf("key %d: binds %d columns, the partition key has %d", i, len(k), t.keyComponents)
		}
		for name, raw := range k {
			ci, ok := t.byName[name]
			if !ok || t.columns[ci].from != fromKey {
				return nil, fmt.Errorf("key %d: %q is not a partition key column", i, name)
			}
			c := t.columns[ci]
			v, err := encodeValue(c.spec.Type, raw)
			if err != nil {
				return nil, fmt.Errorf("key %d, column %s: %w", i, name, err)
			}
			if t.keyComponents > 1 && len(v) > math.MaxUint16 {
				return nil, fmt.Errorf("key %d, column %s: longer than 65535 bytes", i, name)
			}
			parts[c.index] = v
		}
		var key []byte
		if t.keyComponents == 1 {
			key = parts[0]
		} else {
			key = sstable.CompositeKey(nil, parts...)
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			out = append(out, key)
		}
	}
	return out, nil
}

// encodeSlice serializes a clustering slice's bounds.
func encodeSlice(t *table, c *ClusteringSlice) (*TicketSlice, error) {
	if c == nil {
		return nil, nil
	}
	ts := &TicketSlice{}
	for i, b := range []*ClusteringBound{c.Start, c.End} {
		if b == nil {
			continue
		}
		if len(b.Values) > len(t.clustering) {
			return nil, fmt.Errorf("clustering bound: %d values, the table has %d clustering columns", len(b.Values), len(t.clustering))
		}
		vals := make([][]byte, len(b.Values))
		for j, raw := range b.Values {
			v, err := encodeValue(t.clustering[j], raw)
			if err != nil {
				return nil, fmt.Errorf("clustering bound value %d: %w", j, err)
			}
			vals[j] = v
		}
		if i == 0 {
			ts.HasStart, ts.Start, ts.StartIncl = true, vals, b.Inclusive
		} else {
			ts.HasEnd, ts.End, ts.EndIncl = true, vals, b.Inclusive
		}
	}
	return ts, nil
}

func (ts *TicketSlice) slice() sstable.Slice {
	sl := sstable.Slice{}
	if ts.HasStart {
		sl.Start = sstable.Bound{Values: ts.Start, Inclusive: ts.StartIncl}
	}
	if ts.HasEnd {
		sl.End = sstable.Bound{Values: ts.End, Inclusive: ts.EndIncl}
	}
	return sl
}
