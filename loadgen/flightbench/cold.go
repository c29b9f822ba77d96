package flightbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/loadgen"
)

// coldTouch times the first query of a table on a server nothing has
// queried yet: GetFlightInfo of one point read, then DoGet of its
// endpoint. The connection is opened beforehand with ListActions, which
// reads no table, so the time is the query's and not the TCP and HTTP/2
// handshake's.
func coldTouch(ctx context.Context, addr, keyspace, table string, key map[string]any, wantRows int64) (ColdTouch, error) {
	ct := ColdTouch{Table: keyspace + "." + table, WantRows: wantRows}
	cfg := &loadgen.Config{Addr: addr}
	c, err := loadgen.DialFlight(cfg)
	if err != nil {
		return ct, err
	}
	defer c.Close()
	locs := loadgen.NewLocations(cfg, c)
	defer locs.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := openConnection(ctx, c); err != nil {
		return ct, err
	}
	body, err := json.Marshal(map[string]any{"version": 1, "keyspace": keyspace, "table": table, "keys": []any{key}})
	if err != nil {
		return ct, fmt.Errorf("touch %s: %w", ct.Table, err)
	}
	t0 := time.Now()
	info, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body})
	if err != nil {
		return ct, fmt.Errorf("touch %s: get flight info: %w", ct.Table, err)
	}
	t1 := time.Now()
	res, err := loadgen.ReadEndpoints(ctx, locs, info.Endpoint, 0)
	t2 := time.Now()
	if err != nil {
		return ct, fmt.Errorf("touch %s: %w", ct.Table, err)
	}
	ct.PlanUS, ct.ReadUS, ct.TotalUS, ct.Rows = t1.Sub(t0).Microseconds(), t2.Sub(t1).Microseconds(), t2.Sub(t0).Microseconds(), res.Rows
	return ct, nil
}

// openConnection makes one call that touches no table, so the client's
// connection is up before anything is timed.
func openConnection(ctx context.Context, c flight.Client) error {
	stream, err := c.ListActions(ctx, &flight.Empty{})
	if err != nil {
		return fmt.Errorf("open flight connection: %w", err)
	}
	for {
		_, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("open flight connection: %w", err)
		}
	}
}
