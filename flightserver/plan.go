package flightserver

import (
	"context"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/token"
)

// rowsPerSplit sizes scan splits: enough work per endpoint to amortize a
// stream, small enough to spread over a client's workers. A stream's work
// follows the rows it decodes, not its partitions: sized by partitions, a
// table of 200,000 partitions of 10 rows was one endpoint, read by one
// core while the client's others idled.
const rowsPerSplit = 250_000

// estimate sums the SSTables' partition and row counts (an upper bound:
// a partition in several SSTables counts once per SSTable).
func estimate(readers []*sstable.Reader) (partitions, rows int64) {
	for _, r := range readers {
		for _, b := range r.Stats.Stats.PartitionSizes {
			partitions += b.Count
		}
		rows += r.Stats.Stats.TotalRows
	}
	if rows < partitions {
		rows = partitions
	}
	return partitions, rows
}

// groupKeys cuts keys, in order, into the key lists of tickets: at most
// keysPerTicket keys and ticketKeyBytes bytes each (a single key is
// never longer: it is at most maxKeyBytes).
func groupKeys(keys [][]byte) [][][]byte {
	var out [][][]byte
	for lo := 0; lo < len(keys); {
		hi, size := lo, 0
		for hi < len(keys) && hi-lo < request.KeysPerTicket && (hi == lo || size+len(keys[hi]) <= request.TicketKeyBytes) {
			size += len(keys[hi])
			hi++
		}
		out = append(out, keys[lo:hi])
		lo = hi
	}
	return out
}

// sortByToken orders serialized partition keys as the ring does (token,
// then key bytes).
func sortByToken(keys [][]byte) {
	if len(keys) < 2 {
		return // a point read: nothing to order, nothing to allocate
	}
	tokens := make(map[string]token.Token, len(keys))
	for _, k := range keys {
		tokens[string(k)] = token.Of(k)
	}
	slices.SortFunc(keys, func(a, b []byte) int {
		return token.CompareDecorated(tokens[string(a)], a, tokens[string(b)], b)
	})
}

// splitCount is the number of splits for a scan of this many rows (by
// estimate: never fewer than its partitions, see estimate).
func splitCount(requested int, rows int64) int {
	if requested > 0 {
		return requested
	}
	n := int((rows + rowsPerSplit - 1) / rowsPerSplit)
	return max(1, min(n, request.MaxSplits))
}

// endpoint seals a ticket into an endpoint at locations. With none,
// clients read from this server, the one they asked; a ring plan names
// its replicas' servers, the one to read first first.
func (s *service) endpoint(t *request.Ticket, locations []string) (*flight.FlightEndpoint, error) {
	b, err := s.keys.Seal(t)
	if err != nil {
		return nil, request.Invalid(err)
	}
	ep := &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: b}}
	for _, uri := range locations {
		ep.Location = append(ep.Location, &flight.Location{Uri: uri})
	}
	return ep, nil
}

func newTicket(c *request.Command, now int64, epoch string) *request.Ticket {
	return &request.Ticket{Keyspace: c.Keyspace, Table: c.Table, Columns: c.Columns, CountOnly: c.CountOnly, Limit: c.Limit, Now: now, Epoch: epoch}
}

// planned is a command's tickets, its schema (when asked for) and its
// row estimate.
type planned struct {
	tickets []*request.Ticket
	schema  []byte
	rows    int64
	// locations are, for a ring plan (ring), each ticket's servers,
	// the one to read first first.
	locations [][]string
	ring      bool
	// fresh is what the plan's epoch reflects of the writes not yet
	// flushed (the local node's: a ring plan's other servers say theirs
	// in their own plans).
	fresh snapshot.Freshness
}

// acquireProjected leases the command's table (the epoch pin holds for
// it, when not nil: acquirePinned) and resolves its projection; the
// caller releases the lease.
func (s *service) acquireProjected(ctx context.Context, c *request.Command, pin *queryPin) (*tables.Lease, []int, error) {
	l, err := s.acquirePinned(ctx, c, pin)
	if err != nil {
		return nil, nil, err
	}
	proj, err := l.Table().ProjectionFor(c.Columns, c.CountOnly)
	if err != nil {
		l.Release(ctx)
		return nil, nil, err
	}
	return l, proj, nil
}

// planTickets plans a command. A command sent to DoGet as its ticket
// needs no serialized schema, and its ticket is used as it is, not
// encoded and read back. A command naming a query id reads at the read
// time, and each table at the epoch, of the query's first plan
// (queryPins).
func (s *service) planTickets(ctx context.Context, c *request.Command, withSchema bool) (*planned, error) {
	clock := s.cfg.Now()
	now := clock.Unix()
	var pin *queryPin
	if c.QueryID != "" {
		pin = s.pins.pin(c.QueryID, clock)
		now = pin.now
	}
	l, proj, err := s.acquireProjected(ctx, c, pin)
	if err != nil {
		return nil, err
	}
	defer l.Release(ctx)
	p := &planned{fresh: l.Epoch().Fresh}
	if withSchema {
		p.schema = l.Table().SerializedSchema(proj, s.mem)
	}
	partitions, rows := estimate(l.Readers())
	if s.ring != nil {
		if err := s.planRing(ctx, c, l, p, now, partitions, rows); err != nil {
			return nil, err
		}
		if c.Limit > 0 {
			p.rows = min(p.rows, c.Limit*int64(len(p.tickets)))
		}
		return p, nil
	}
	perPartition := float64(rows) / math.Max(1, float64(partitions))
	if len(c.Keys) > 0 {
		keys, err := l.Table().EncodeKeys(c.Keys)
		if err != nil {
			return nil, request.Invalid(err)
		}
		sl, err := l.Table().EncodeSlice(c.Clustering)
		if err != nil {
			return nil, request.Invalid(err)
		}
		// Keys in token order, as CQL returns an IN, grouped so that an
		// IN list is one stream (or a few for long lists, for clients
		// that read endpoints in parallel).
		sortByToken(keys)
		for _, group := range groupKeys(keys) {
			t := newTicket(c, now, l.Epoch().ID)
			t.Keys, t.Slice = group, sl
			p.tickets = append(p.tickets, t)
		}
		p.rows = int64(math.Ceil(perPartition * float64(len(keys))))
	} else {
		start, end := int64(0), int64(0)
		fraction := 1.0
		if r := c.TokenRange; r != nil {
			start, end = int64(r.Start), int64(r.End)
			if start != end {
				fraction = token.Range{Start: token.Token(start), End: token.Token(end)}.Fraction()
			}
		}
		n := splitCount(c.Splits, int64(float64(rows)*fraction))
		if c.Limit > 0 && c.Splits == 0 {
			n = 1 // one stream stops after limit rows; more would each read limit rows
		}
		for _, r := range (token.Range{Start: token.Token(start), End: token.Token(end)}).Split(n) {
			t := newTicket(c, now, l.Epoch().ID)
			t.Range = &[2]token.Token{r.Start, r.End}
			p.tickets = append(p.tickets, t)
		}
		p.rows = int64(float64(rows) * fraction)
	}
	if c.Limit > 0 {
		p.rows = min(p.rows, c.Limit*int64(len(p.tickets)))
	}
	return p, nil
}
