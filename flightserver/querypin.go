package flightserver

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/snapshot"
)

// queryPins keeps, per query id (Command.QueryID), the read time its
// first plan on this server chose and, per table, the snapshot epoch that
// table's first plan of the query leased, so that every plan of one
// query reads each table's same SSTables and expires TTLs at one instant
// (docs/flight-api.md, "One read per query").
//
// Memory is bounded by Config.QueryPins: a new id past it drops the
// oldest pin. A pin lives Config.QueryPinTTL from its first plan, so a
// reused id never gets a read time older than that. A pin holds no lease:
// it names its epochs, which live and retire by the snapshot package's
// own rules (leased while a plan or stream uses them, then the grace);
// a plan whose pinned epoch is gone is ABORTED (leasePinned).
type queryPins struct {
	max int
	ttl time.Duration

	mu    sync.Mutex
	byID  map[request.QueryID]*list.Element // of order
	order *list.List                        // *queryPin, oldest first
	// evicted counts pins the cap dropped before their TTL: a query
	// whose later plans came after that pinned again
	// (sstf_query_pins_evicted_total).
	evicted int64
}

// queryPin is one query's pins; its fields after now are guarded by
// queryPins.mu.
type queryPin struct {
	id      request.QueryID
	created time.Time
	now     int64                  // read time, seconds since the epoch
	epochs  map[tables.Name]string // snapshot epoch ID by table
}

func newQueryPins(max int, ttl time.Duration) *queryPins {
	return &queryPins{max: max, ttl: ttl, byID: map[request.QueryID]*list.Element{}, order: list.New()}
}

// pin returns id's pin, made now if it has none (then its read time is
// now's), after dropping the pins past their TTL.
func (q *queryPins) pin(id request.QueryID, now time.Time) *queryPin {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Pins are made in time order and all live ttl: the expired ones
	// are at the front.
	for e := q.order.Front(); e != nil && now.Sub(e.Value.(*queryPin).created) >= q.ttl; e = q.order.Front() {
		q.drop(e)
	}
	if e, ok := q.byID[id]; ok {
		return e.Value.(*queryPin)
	}
	for q.order.Len() >= q.max {
		q.drop(q.order.Front())
		q.evicted++
	}
	p := &queryPin{id: id, created: now, now: now.Unix()}
	q.byID[id] = q.order.PushBack(p)
	return p
}

// forget drops p, if it is still kept: the query's next plan pins anew.
func (q *queryPins) forget(p *queryPin) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.byID[p.id]; ok && e.Value.(*queryPin) == p {
		q.drop(e)
	}
}

func (q *queryPins) drop(e *list.Element) {
	delete(q.byID, e.Value.(*queryPin).id)
	q.order.Remove(e)
}

// epoch is the epoch p pinned for table, if any.
func (q *queryPins) epoch(p *queryPin, table tables.Name) (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	id, ok := p.epochs[table]
	return id, ok
}

// setEpoch pins id for table unless a plan of the query running at the
// same time pinned one first; it returns the epoch pinned. The tables a
// pin names are tables found in the data directory, so their number is
// bounded by it.
func (q *queryPins) setEpoch(p *queryPin, table tables.Name, id string) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if cur, ok := p.epochs[table]; ok {
		return cur
	}
	if p.epochs == nil {
		p.epochs = map[tables.Name]string{}
	}
	p.epochs[table] = id
	return id
}

// stats is the pins kept and those the cap dropped so far.
func (q *queryPins) stats() (pins int, evicted int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.order.Len(), q.evicted
}

// acquirePinned leases the command's table for a plan: the epoch pin
// holds for it, else the current one, which it pins for the query's
// later plans. Without a pin, or planning over a ring, whose tickets name
// no epoch (each server reads its own SSTables), the current one.
func (s *service) acquirePinned(ctx context.Context, c *request.Command, pin *queryPin) (*tables.Lease, error) {
	if pin == nil || s.ring != nil {
		return s.tables.Acquire(ctx, c.Keyspace, c.Table)
	}
	key := tables.Name{Keyspace: c.Keyspace, Table: c.Table}
	if id, ok := s.pins.epoch(pin, key); ok {
		return s.leasePinned(ctx, c, pin, id)
	}
	l, err := s.tables.Acquire(ctx, c.Keyspace, c.Table)
	if err != nil {
		return nil, err
	}
	if id := s.pins.setEpoch(pin, key, l.Epoch().ID); id != l.Epoch().ID {
		// A plan of the query running at the same time pinned first.
		l.Release(ctx)
		return s.leasePinned(ctx, c, pin, id)
	}
	return l, nil
}

// leasePinned leases the epoch a query pinned: ABORTED if it retired, as
// a ticket of that epoch would be. The pin is then dropped: the query
// fails (its earlier plans' tickets name that epoch too), and a client
// that runs it again under the same id (Trino's query retries keep the
// query id) pins afresh rather than being ABORTED until the pin expires.
func (s *service) leasePinned(ctx context.Context, c *request.Command, pin *queryPin, epoch string) (*tables.Lease, error) {
	l, err := s.tables.AcquireEpoch(ctx, c.Keyspace, c.Table, epoch)
	if errors.Is(err, snapshot.ErrEpochGone) {
		s.pins.forget(pin)
		return nil, fmt.Errorf("plan %s.%s for query_id %q: the snapshot epoch its first plan of the table read is gone (unused past the snapshot grace, or retired early): run the query again: %w",
			c.Keyspace, c.Table, c.QueryID, err)
	}
	return l, err
}
