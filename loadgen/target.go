package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// Target runs op number i of the configured shape and reports what it
// read. The Flight and CQL arms are both Targets, so the step runner and
// the report treat them alike.
type Target interface {
	Arm() string // "flight" or "cql"
	Do(ctx context.Context, op uint64) (Result, error)
}

// flightTarget is the Flight arm: every op is GetFlightInfo and the
// DoGets of its endpoints, the two round trips any Flight client makes.
type flightTarget struct {
	c      flight.Client // the planning server
	locs   *Locations
	shape  string
	plan   *plan
	k      int
	fanout int
	fixed  *flight.FlightDescriptor // scan and limit: the same command every op
	prefix []byte                   // `{"version":1,"keyspace":...,"table":...,`
	direct bool                     // single-endpoint shapes: the command is the DoGet ticket
}

func newFlightTarget(l *Locations, s *TableSchema, cfg *Config, p *plan) (*flightTarget, error) {
	ks, _ := json.Marshal(s.Keyspace)
	tb, _ := json.Marshal(s.Table)
	t := &flightTarget{c: l.planner, locs: l, shape: cfg.Shape, plan: p, k: cfg.K, fanout: cfg.Fanout,
		direct: cfg.Direct && cfg.Shape != ShapeScan && cfg.Shape != ShapeRange,
		prefix: []byte(`{"version":1,"keyspace":` + string(ks) + `,"table":` + string(tb) + `,`)}
	var fixed []byte
	switch cfg.Shape {
	case ShapeScan:
		fixed = t.cmd(`"splits":` + strconv.Itoa(cfg.ScanSplits))
	case ShapeLimit:
		// No splits: the server plans a limited scan as one endpoint that
		// returns the first k rows in token order (on a ring, endpoints
		// read in order until k rows: ReadFirst).
		fixed = t.cmd(`"limit":` + strconv.Itoa(cfg.K))
	case ShapePoint, ShapeIn, ShapeSlice:
		if len(p.keys) == 0 {
			return nil, fmt.Errorf("flight target: shape %s needs sampled keys", cfg.Shape)
		}
	}
	if fixed != nil {
		t.fixed = &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: fixed}
	}
	return t, nil
}

func (t *flightTarget) Arm() string { return "flight" }

func (t *flightTarget) cmd(fields string) []byte {
	return append(append(append([]byte{}, t.prefix...), fields...), '}')
}

// descriptor is op i's command.
func (t *flightTarget) descriptor(op uint64) *flight.FlightDescriptor {
	if t.fixed != nil {
		return t.fixed
	}
	var body []byte
	switch t.shape {
	case ShapePoint, ShapeIn:
		n := 1
		if t.shape == ShapeIn {
			n = t.k
		}
		body = append(append([]byte{}, t.prefix...), `"keys":[`...)
		for i, k := range t.plan.keysFor(op, n) {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, k.JSON...)
		}
		body = append(body, "]}"...)
	case ShapeSlice:
		k, lo, hi := t.plan.sliceFor(op)
		body = append(append([]byte{}, t.prefix...), `"keys":[`...)
		body = append(append(body, k.JSON...), `],"clustering":{"start":{"values":[`...)
		body = append(append(body, lo.JSON...), `],"inclusive":true},"end":{"values":[`...)
		body = append(append(body, hi.JSON...), `],"inclusive":true}}}`...)
	case ShapeRange:
		start, end := t.plan.rangeFor(op)
		body = t.cmd(`"token_range":{"start":"` + strconv.FormatInt(start, 10) + `","end":"` + strconv.FormatInt(end, 10) + `"}`)
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body}
}

func (t *flightTarget) Do(ctx context.Context, op uint64) (Result, error) {
	if t.direct {
		// No location: the planning server plans and reads the command
		// in one call.
		return t.locs.read(ctx, &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: t.descriptor(op).Cmd}})
	}
	info, err := t.c.GetFlightInfo(ctx, t.descriptor(op))
	if err != nil {
		return Result{}, fmt.Errorf("get flight info: %w", err)
	}
	if (t.shape == ShapePoint || t.shape == ShapeSlice) && len(info.Endpoint) != 1 {
		return Result{}, fmt.Errorf("%s op planned %d endpoints, want 1", t.shape, len(info.Endpoint))
	}
	if t.shape == ShapeLimit {
		// One endpoint on a single node; one per run of ring ranges on a
		// cluster, read in order until k rows.
		return ReadFirst(ctx, t.locs, info.Endpoint, int64(t.k))
	}
	return ReadEndpoints(ctx, t.locs, info.Endpoint, t.fanout)
}

// mixTarget runs each op as one of the mix's shapes, drawn from the seed
// and the op number: both arms run the same shape for the same op.
type mixTarget struct {
	arm     string
	plan    *plan
	mix     []MixEntry
	targets map[string]Target
}

func newMixTarget(arm string, p *plan, mix []MixEntry, build func(shape string) (Target, error)) (*mixTarget, error) {
	t := &mixTarget{arm: arm, plan: p, mix: mix, targets: map[string]Target{}}
	for _, m := range mix {
		if t.targets[m.Shape] != nil {
			continue
		}
		sub, err := build(m.Shape)
		if err != nil {
			return nil, err
		}
		t.targets[m.Shape] = sub
	}
	return t, nil
}

func (t *mixTarget) Arm() string { return t.arm }

func (t *mixTarget) Do(ctx context.Context, op uint64) (Result, error) {
	return t.targets[t.plan.shapeFor(op, t.mix)].Do(ctx, op)
}
