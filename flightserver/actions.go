package flightserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/flightserver/request"
)

// The names of the Flight actions the server runs (flight.Action.Type),
// for clients to use: each is one entry of actionList.
const (
	ActionTableStats    = "table-stats"
	ActionRefreshSchema = "refresh-schema"
	// ActionNodeInfo says which Cassandra node the server serves, so
	// that a planner can check a peer before it sends clients there.
	ActionNodeInfo = "node-info"
)

// flightAction is one Flight action: its name, what ListActions says of
// it, and its handler, which returns the body of its one result.
type flightAction struct {
	name, description string
	run               func(s *service, ctx context.Context, body []byte) ([]byte, error)
}

// actionList is every Flight action the server runs, the one list
// ListActions lists and DoAction dispatches on. To add an action, add its
// name above and its entry here; clients (cmd, loadgen, the tests) use
// the name's constant, and the Trino connector's TableStats.ACTION
// repeats table-stats' name (Java cannot import it).
var actionList = []flightAction{
	{ActionTableStats, `{"keyspace": ..., "table": ...} → JSON: SSTables, bytes, partition and row estimates (this node's and the whole table's), min/max write timestamp`,
		func(s *service, ctx context.Context, body []byte) ([]byte, error) {
			var req struct {
				Keyspace string `json:"keyspace"`
				Table    string `json:"table"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				return nil, request.Invalid(fmt.Errorf("read table-stats request: %w", err))
			}
			st, err := s.tableStats(ctx, req.Keyspace, req.Table)
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(st)
			return b, nil
		}},
	{ActionRefreshSchema, "reload table schemas now (from Cassandra, schema.cql or SSTable headers)",
		func(s *service, ctx context.Context, _ []byte) ([]byte, error) {
			if err := s.refreshSchema(ctx); err != nil {
				return nil, err
			}
			return []byte(`{"refreshed":true}`), nil
		}},
	{ActionNodeInfo, `→ JSON {"host_id": ..., "cassandra": {"up": ...}}: the Cassandra node this server serves (cluster planning, once its ring is read) and the connection to it (with --cassandra)`,
		func(s *service, ctx context.Context, _ []byte) ([]byte, error) {
			info, err := s.nodeInfo(ctx)
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(info)
			return b, nil
		}},
}

func (s *service) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range actionList {
		if err := stream.Send(&flight.ActionType{Type: a.name, Description: a.description}); err != nil {
			return err
		}
	}
	return nil
}

func (s *service) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	for _, fa := range actionList {
		if fa.name != a.GetType() {
			continue
		}
		body, err := fa.run(s, stream.Context(), a.GetBody())
		if err != nil {
			return err
		}
		return stream.Send(&flight.Result{Body: body})
	}
	return request.Invalid(fmt.Errorf("do action: unknown action %q", a.GetType()))
}

// ListFlights lists every table of the data directory with its schema,
// its full-scan endpoints and row estimate. A table whose schema cannot
// be read is logged and left out rather than failing the listing.
func (s *service) ListFlights(_ *flight.Criteria, stream flight.FlightService_ListFlightsServer) error {
	dirs, err := s.tables.All(stream.Context())
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, td := range dirs {
		name := td.Keyspace + "." + td.Table
		if seen[name] {
			continue
		}
		seen[name] = true
		d := &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{td.Keyspace, td.Table}}
		info, err := s.plan(stream.Context(), &request.Command{Version: request.CommandVersion, Keyspace: td.Keyspace, Table: td.Table}, d)
		if err != nil {
			s.log.Warn("list flights: skip table", "table", name, "err", err)
			continue
		}
		if err := stream.Send(info); err != nil {
			return err
		}
	}
	return nil
}

// refreshSchema forgets the schemas the server resolved and has the
// source read them again now (refresh-schema).
func (s *service) refreshSchema(ctx context.Context) error {
	s.tables.Forget()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return s.cfg.Schemas.Refresh(ctx)
}
