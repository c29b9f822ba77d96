package flightserver

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/ring"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/flightserver/transport"
)

// service implements the Flight RPCs over the tables of one data
// directory.
type service struct {
	flight.BaseFlightServer

	cfg     Config
	mem     memory.Allocator
	tables  *tables.Registry
	adm     *transport.Admission
	metrics *metrics
	log     *slog.Logger
	headers arrowenc.SchemaHeaders // DoGet streams' schema messages
	keys    *request.TicketKeys    // sign the tickets planned, verify those given
	// failureLog rate-limits the log lines of failed RPCs (observe).
	failureLog *transport.LogLimiter
	// guard fails a panicking RPC alone (panicGuard).
	guard *panicGuard
	// decoding bounds the request bytes decoded and planned at once
	// (Config.MaxDecodeBytes).
	decoding *transport.Budget
	rpcs     *rpcs               // running now, for the drain's report
	scrub    *transport.Scrubber // the server's paths out of client messages
	// ring and peers are set with Config.Cluster: the ring the server
	// plans over and checks reads against, and its proven peers.
	ring  *ring.View
	peers *ring.PeerChecks
	// pins are the read times and snapshot epochs of the queries that
	// named an id (Command.QueryID).
	pins *queryPins
}

// command reads a descriptor: PATH [keyspace, table] or a JSON command.
func command(d *flight.FlightDescriptor) (*request.Command, error) {
	if d == nil {
		return nil, request.Invalid(fmt.Errorf("read descriptor: none"))
	}
	switch d.Type {
	case flight.DescriptorPATH:
		if len(d.Path) != 2 {
			return nil, request.Invalid(fmt.Errorf("read descriptor: path %q, want [keyspace, table]", d.Path))
		}
		return &request.Command{Version: request.CommandVersion, Keyspace: d.Path[0], Table: d.Path[1]}, nil
	case flight.DescriptorCMD:
		c, err := request.ParseCommand(d.Cmd)
		if err != nil {
			return nil, request.Invalid(err)
		}
		return c, nil
	}
	return nil, request.Invalid(fmt.Errorf("read descriptor: unknown type %v", d.Type))
}

// decodeWeight is what a descriptor's command may spend of the decoding
// budget, its decoding and planning: its request bytes.
func decodeWeight(d *flight.FlightDescriptor) int64 {
	n := len(d.GetCmd()) + 1
	for _, p := range d.GetPath() {
		n += len(p)
	}
	return int64(n)
}

// decodeCommand reads a descriptor's command under the decoding budget:
// it takes the descriptor's weight n first, and the caller gives n back
// once it has planned. On error nothing is held.
func (s *service) decodeCommand(ctx context.Context, d *flight.FlightDescriptor) (c *request.Command, n int64, err error) {
	n = decodeWeight(d)
	if err := s.decoding.Acquire(ctx, n); err != nil {
		return nil, 0, err
	}
	if c, err = command(d); err != nil {
		s.decoding.Release(n)
		return nil, 0, err
	}
	return c, n, nil
}

func (s *service) GetSchema(ctx context.Context, d *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	c, n, err := s.decodeCommand(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.decoding.Release(n)
	l, proj, err := s.acquireProjected(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	defer l.Release(ctx)
	return &flight.SchemaResult{Schema: l.Table().SerializedSchema(proj, s.mem)}, nil
}

func (s *service) GetFlightInfo(ctx context.Context, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	start := time.Now() // a latency: real time, not Config.Now
	defer func() { s.metrics.phase.WithLabelValues("plan").Observe(time.Since(start).Seconds()) }()
	c, n, err := s.decodeCommand(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.decoding.Release(n)
	return s.plan(ctx, c, d)
}

// plan returns the endpoints of a command: one per partition key, or
// token-range splits that cover the requested range exactly once.
func (s *service) plan(ctx context.Context, c *request.Command, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.planTickets(ctx, c, true)
	if err != nil {
		return nil, err
	}
	info := &flight.FlightInfo{Schema: p.schema, FlightDescriptor: d, TotalBytes: -1, TotalRecords: p.rows, Ordered: true}
	info.AppMetadata = planMetadata(p, c.Limit)
	for i, t := range p.tickets {
		var locs []string
		if p.ring {
			locs = p.locations[i]
		}
		ep, err := s.endpoint(t, locs)
		if err != nil {
			return nil, err
		}
		// A ticket the server would refuse back is not issued.
		if n := len(ep.Ticket.Ticket); n > s.cfg.MaxRequestBytes-transport.TicketFraming {
			return nil, request.Invalid(fmt.Errorf("plan %s.%s: a ticket of %d bytes, over the %d a request may have (MaxRequestBytes): ask for fewer or shorter keys",
				c.Keyspace, c.Table, n, s.cfg.MaxRequestBytes-transport.TicketFraming))
		}
		info.Endpoint = append(info.Endpoint, ep)
	}
	return info, nil
}
