package flightserver

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/ring"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/flightserver/transport"
	"github.com/sstable-flight/sstable-flight/internal/arrowsize"
	"github.com/sstable-flight/sstable-flight/reconcile"
)

// cancelCheckRows is how often the row loop looks at the stream's
// context: a cancelled client stops decoding within about this many rows
// (well under a millisecond at scan speed).
const cancelCheckRows = 1024

// drain appends a merge's rows to the batcher, sending full batches, up
// to the ticket's limit (counted in rows, across merges).
func (s *service) drain(ctx context.Context, m *reconcile.Merger, b *arrowenc.Batcher, t *request.Ticket, rows *int64, send func() error, decodeStart *time.Time) error {
	for m.Next() {
		full, err := b.Add(m.Row())
		if err != nil {
			return fmt.Errorf("encode row of %s.%s: %w", t.Keyspace, t.Table, err)
		}
		*rows++
		if *rows%cancelCheckRows == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if t.Limit > 0 && *rows >= t.Limit {
			break
		}
		if full {
			s.metrics.phase.WithLabelValues("decode").Observe(time.Since(*decodeStart).Seconds())
			if err := send(); err != nil {
				return err
			}
			*decodeStart = time.Now()
		}
	}
	// A merge error after some batches fails the stream: the client never
	// takes partial data for the whole range.
	if err := m.Err(); err != nil {
		return fmt.Errorf("read %s.%s: %w", t.Keyspace, t.Table, err)
	}
	return nil
}

// ticketOf reads a DoGet ticket: one a plan issued, verified before it
// is read (request/ticket.go), or a command (docs/flight-api.md) that plans to a
// single endpoint, which a client may send straight to DoGet to read a
// few keys in one round trip. Their first bytes tell them apart
// (request/ticketkind.go). Decoding costs many times the ticket's size, so it
// spends the decoding budget.
func (s *service) ticketOf(ctx context.Context, b []byte) (*request.Ticket, error) {
	n := int64(len(b) + 1)
	if err := s.decoding.Acquire(ctx, n); err != nil {
		return nil, err
	}
	defer s.decoding.Release(n)
	if request.IsTicket(b) {
		t, err := s.keys.Open(b)
		if err != nil {
			return nil, request.Invalid(err)
		}
		return t, nil
	}
	if !request.IsCommand(b) {
		return nil, request.Invalid(fmt.Errorf("read ticket: %d bytes that are neither a ticket a plan of this server issued nor a JSON command", len(b)))
	}
	c, err := request.ParseCommand(b)
	if err != nil {
		return nil, request.Invalid(err)
	}
	p, err := s.planTickets(ctx, c, false)
	if err != nil {
		return nil, err
	}
	if len(p.tickets) != 1 {
		return nil, request.Invalid(fmt.Errorf("read command as a ticket: it plans %d endpoints; a command sent to DoGet must plan one (call GetFlightInfo for the others)", len(p.tickets)))
	}
	return p.tickets[0], nil
}

// checkOwned checks a ring ticket against the server's ring
// (ring.View.CheckOwned); a server that plans no ring refuses every one
// as not its node's, never reads it whole.
func (s *service) checkOwned(ctx context.Context, t *request.Ticket) error {
	if s.ring == nil {
		return fmt.Errorf("read ticket of %s.%s: it was planned over a cluster's ring and this server has none: %w", t.Keyspace, t.Table, ring.ErrNotOwned)
	}
	return s.ring.CheckOwned(ctx, t)
}

func (s *service) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	ctx := stream.Context()
	// The slot first: a stream that waits for one holds only its raw
	// ticket, and one that is shed was never decoded nor planned.
	release, err := s.adm.Acquire(ctx)
	if err != nil {
		if err == transport.ErrShed {
			s.metrics.sheds.Inc()
		}
		return err
	}
	defer release()
	t, err := s.ticketOf(ctx, tkt.GetTicket())
	if err != nil {
		return err
	}

	// NB: the phase timings are real time (time.Now, never Config.Now),
	// as latencies are.
	openStart := time.Now()
	// Every ticket names its epoch (Ticket.checkShape), a command's too,
	// but a ring ticket: planned on another server, it reads this one's
	// current SSTables, once its node is shown to replicate the ticket.
	var l *tables.Lease
	if t.Ring {
		if err := s.checkOwned(ctx, t); err != nil {
			return err
		}
		l, err = s.tables.Acquire(ctx, t.Keyspace, t.Table)
	} else {
		l, err = s.tables.AcquireEpoch(ctx, t.Keyspace, t.Table, t.Epoch)
	}
	if err != nil {
		return err
	}
	defer l.Release(ctx)
	proj, err := l.Table().ProjectionFor(t.Columns, t.CountOnly)
	if err != nil {
		return err
	}
	if err := l.Table().CheckTicket(t); err != nil {
		return request.Invalid(err)
	}
	// Left-out columns are not assembled (collections, counters), though
	// their cells still decide which rows exist. The stream's context
	// goes with every read of the merge: a client that cancels, or whose
	// deadline passes, ends a read that waits for storage that does not
	// answer, rather than waiting out the I/O timeout.
	opts := reconcile.Options{Now: t.Now, Columns: l.Table().ValueColumns(proj), Context: ctx}
	// One merge for a range; one per key, in turn, for keys.
	merges := max(1, len(t.Keys))
	open := func(i int) (*reconcile.Merger, error) {
		switch {
		case t.Range != nil:
			return reconcile.NewRange(l.Table().Reconcile(), l.Readers(), opts, int64(t.Range[0]), int64(t.Range[1]))
		case t.Slice != nil:
			return reconcile.NewSlice(l.Table().Reconcile(), l.Readers(), opts, t.Keys[i], t.Slice.Slice())
		default:
			return reconcile.NewKey(l.Table().Reconcile(), l.Readers(), opts, t.Keys[i])
		}
	}
	b, err := l.Table().BatcherFor(s.mem, proj, s.cfg.BatchRows, s.cfg.BatchBytes)
	if err != nil {
		return err
	}
	defer l.Table().Done(b, proj)
	w := &arrowenc.RecordSender{Stream: stream, Mem: s.mem}
	if err := w.Start(s.headers.Header(b.Schema(), s.mem, l.Table().IsAll(proj))); err != nil {
		return err
	}
	s.metrics.phase.WithLabelValues("open").Observe(time.Since(openStart).Seconds())

	send := func() error {
		encStart := time.Now()
		rec := b.Flush()
		if rec == nil {
			return nil
		}
		defer rec.Release()
		sendStart := time.Now()
		s.metrics.phase.WithLabelValues("encode").Observe(sendStart.Sub(encStart).Seconds())
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("send batch: %w", err)
		}
		s.metrics.phase.WithLabelValues("send").Observe(time.Since(sendStart).Seconds())
		s.metrics.rowsOut.Add(float64(rec.NumRows()))
		s.metrics.bytesOut.Add(float64(arrowsize.RecordBytes(rec)))
		return nil
	}
	var rows int64
	decodeStart := time.Now()
	for i := 0; i < merges && (t.Limit == 0 || rows < t.Limit); i++ {
		m, err := open(i)
		if err != nil {
			return fmt.Errorf("start merge of %s.%s: %w", t.Keyspace, t.Table, err)
		}
		err = s.drain(ctx, m, b, t, &rows, send, &decodeStart)
		m.Release() // the rows were copied into the builders
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.metrics.phase.WithLabelValues("decode").Observe(time.Since(decodeStart).Seconds())
	return send()
}
