package flightserver

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// Action types.
const (
	ActionTableStats    = "table-stats"
	ActionRefreshSchema = "refresh-schema"
	// ActionNodeInfo says which Cassandra node the server serves, so
	// that a planner can check a peer before it sends clients there.
	ActionNodeInfo = "node-info"
)

func (s *service) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range []*flight.ActionType{
		{Type: ActionTableStats, Description: `{"keyspace": ..., "table": ...} → JSON: SSTables, bytes, partition and row estimates (this node's and the whole table's), min/max write timestamp`},
		{Type: ActionRefreshSchema, Description: "reload table schemas now (from Cassandra, schema.cql or SSTable headers)"},
		{Type: ActionNodeInfo, Description: `→ JSON {"host_id": ..., "cassandra": {"up": ...}}: the Cassandra node this server serves (cluster planning, once its ring is read) and the connection to it (with --cassandra)`},
	} {
		if err := stream.Send(a); err != nil {
			return err
		}
	}
	return nil
}

func (s *service) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	switch a.GetType() {
	case ActionTableStats:
		var req struct {
			Keyspace string `json:"keyspace"`
			Table    string `json:"table"`
		}
		if err := json.Unmarshal(a.GetBody(), &req); err != nil {
			return invalid(fmt.Errorf("read table-stats request: %w", err))
		}
		st, err := s.tableStats(stream.Context(), req.Keyspace, req.Table)
		if err != nil {
			return err
		}
		body, _ := json.Marshal(st)
		return stream.Send(&flight.Result{Body: body})
	case ActionRefreshSchema:
		if err := s.refreshSchema(stream.Context()); err != nil {
			return err
		}
		return stream.Send(&flight.Result{Body: []byte(`{"refreshed":true}`)})
	case ActionNodeInfo:
		info, err := s.nodeInfo(stream.Context())
		if err != nil {
			return err
		}
		body, _ := json.Marshal(info)
		return stream.Send(&flight.Result{Body: body})
	}
	return invalid(fmt.Errorf("do action: unknown action %q", a.GetType()))
}

// ListFlights lists every table of the data directory with its schema,
// its full-scan endpoints and row estimate. A table whose schema cannot
// be read is logged and left out rather than failing the listing.
func (s *service) ListFlights(_ *flight.Criteria, stream flight.FlightService_ListFlightsServer) error {
	dirs, err := s.tables.all(stream.Context())
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
		info, err := s.plan(stream.Context(), &Command{Version: CommandVersion, Keyspace: td.Keyspace, Table: td.Table}, d)
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
