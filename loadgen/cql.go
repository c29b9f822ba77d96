package loadgen

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// cqlTarget is the baseline arm: the same ops, over the same keys and
// token ranges, through Cassandra's CQL path with gocql, so each Flight
// figure has a CQL figure from the same run to be divided by.
type cqlTarget struct {
	s        *gocql.Session
	shape    string
	plan     *plan
	k        int
	pageSize int
	keyCols  int
	q        string // the shape's statement (point, in, limit, scan, range)
	tokenGT  string // range, wrapping: token(...) > ?
	tokenLE  string // range, wrapping: token(...) <= ?
	scanQ    string // range over the whole ring
}

// newCQLSession connects to one node only, like the server's own schema
// session: the comparison is one node against the server beside it.
func newCQLSession(cfg *Config) (*gocql.Session, error) {
	host, port, err := net.SplitHostPort(cfg.CompareCQL)
	if err != nil {
		return nil, fmt.Errorf("read --compare-cql %q: %w", cfg.CompareCQL, err)
	}
	c := gocql.NewCluster(host)
	if c.Port, err = strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("read --compare-cql port %q: %w", port, err)
	}
	c.ProtoVersion = 5
	c.Consistency = gocql.One
	c.DisableInitialHostLookup = true
	c.Timeout = 30 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.PageSize = cfg.CQLPageSize
	if cfg.CQLUser != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: cfg.CQLUser, Password: cfg.CQLPassword}
	}
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to cassandra %s: %w", cfg.CompareCQL, err)
	}
	return s, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func newCQLTarget(s *gocql.Session, ts *TableSchema, cfg *Config, p *plan) (*cqlTarget, error) {
	t := &cqlTarget{s: s, shape: cfg.Shape, plan: p, k: cfg.K, pageSize: cfg.CQLPageSize, keyCols: len(ts.Key)}
	from := "SELECT * FROM " + quoteIdent(ts.Keyspace) + "." + quoteIdent(ts.Table)
	var eq, names []string
	for _, k := range ts.Key {
		eq = append(eq, quoteIdent(k.Name)+" = ?")
		names = append(names, quoteIdent(k.Name))
	}
	token := "token(" + strings.Join(names, ", ") + ")"
	t.scanQ = from
	switch cfg.Shape {
	case ShapePoint:
		t.q = from + " WHERE " + strings.Join(eq, " AND ")
	case ShapeIn:
		if len(ts.Key) == 1 {
			t.q = from + " WHERE " + names[0] + " IN ?"
		} else {
			// CQL has no IN over a composite partition key as a
			// whole: k point queries, concurrently, as Flight reads
			// its k endpoints.
			t.q = from + " WHERE " + strings.Join(eq, " AND ")
		}
	case ShapeLimit:
		t.q = from + " LIMIT " + strconv.Itoa(cfg.K)
	case ShapeScan:
		t.q = from
	case ShapeSlice:
		if ts.Clustering == nil {
			return nil, fmt.Errorf("cql target: shape slice needs a clustering column")
		}
		// Bounds come in clustering order: the first is the larger value
		// of a DESC column.
		ck := quoteIdent(ts.Clustering.Name)
		first, second := " >= ?", " <= ?"
		if ts.Clustering.Desc {
			first, second = " <= ?", " >= ?"
		}
		t.q = from + " WHERE " + strings.Join(eq, " AND ") + " AND " + ck + first + " AND " + ck + second
	case ShapeRange:
		t.q = from + " WHERE " + token + " > ? AND " + token + " <= ?"
		t.tokenGT = from + " WHERE " + token + " > ?"
		t.tokenLE = from + " WHERE " + token + " <= ?"
	}
	if needsKeys(cfg.Shape) && len(p.keys) == 0 {
		return nil, fmt.Errorf("cql target: shape %s needs sampled keys", cfg.Shape)
	}
	return t, nil
}

func (t *cqlTarget) Arm() string { return "cql" }

func (t *cqlTarget) Do(ctx context.Context, op uint64) (Result, error) {
	switch t.shape {
	case ShapePoint:
		return t.read(ctx, t.q, t.plan.keysFor(op, 1)[0].CQL...)
	case ShapeIn:
		keys := t.plan.keysFor(op, t.k)
		if t.keyCols == 1 {
			vals := make([]any, len(keys))
			for i, k := range keys {
				vals[i] = k.CQL[0]
			}
			return t.read(ctx, t.q, vals)
		}
		return t.concurrently(ctx, len(keys), func(ctx context.Context, i int) (Result, error) {
			return t.read(ctx, t.q, keys[i].CQL...)
		})
	case ShapeSlice:
		k, lo, hi := t.plan.sliceFor(op)
		return t.read(ctx, t.q, append(append([]any{}, k.CQL...), lo.CQL, hi.CQL)...)
	case ShapeRange:
		start, end := t.plan.rangeFor(op)
		switch {
		case start < end:
			return t.read(ctx, t.q, start, end)
		case start == end:
			return t.read(ctx, t.scanQ)
		}
		// Wraps: (start, max] and (min, end], as the server splits it.
		return t.concurrently(ctx, 2, func(ctx context.Context, i int) (Result, error) {
			if i == 0 {
				return t.read(ctx, t.tokenGT, start)
			}
			return t.read(ctx, t.tokenLE, end)
		})
	}
	return t.read(ctx, t.q) // limit, scan
}

// concurrently runs n reads at once; the first failure is the op's.
func (t *cqlTarget) concurrently(ctx context.Context, n int, f func(context.Context, int) (Result, error)) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		total Result
		first error
		wg    sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := f(ctx, i)
			mu.Lock()
			defer mu.Unlock()
			total.add(r)
			if err != nil && first == nil {
				first = err
				cancel()
			}
		}()
	}
	wg.Wait()
	return total, first
}

// read runs one statement and pages through all its rows. Values are
// counted, not decoded: decoding into Go values is the client's cost, and
// on a shared machine it would take CPU from the server being measured.
// Bytes are the serialized value bytes, the CQL counterpart of Arrow's
// buffer bytes.
func (t *cqlTarget) read(ctx context.Context, stmt string, vals ...any) (Result, error) {
	iter := t.s.Query(stmt, vals...).PageSize(t.pageSize).IterContext(ctx)
	var res Result
	dest, counted := valueCounters(iter.Columns())
	for iter.Scan(dest...) {
		res.Rows++
	}
	for _, c := range counted {
		res.Bytes += int64(*c)
	}
	if err := iter.Close(); err != nil {
		return res, fmt.Errorf("cql %s: %w", stmt, err)
	}
	return res, nil
}

// byteCount is a scan destination that adds up the value bytes it is
// given and decodes nothing.
type byteCount int64

// UnmarshalCQL implements gocql.Unmarshaler.
func (b *byteCount) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*b += byteCount(len(data))
	return nil
}

// valueCounters is one scan destination per value of a row: gocql scans
// a tuple column into one destination per element.
func valueCounters(cols []gocql.ColumnInfo) ([]any, []*byteCount) {
	var dest []any
	var counted []*byteCount
	for _, c := range cols {
		n := 1
		if tt, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
			n = len(tt.Elems)
		}
		for range n {
			b := new(byteCount)
			dest, counted = append(dest, b), append(counted, b)
		}
	}
	return dest, counted
}
