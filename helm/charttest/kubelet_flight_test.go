//go:build kubelet

package charttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// flightClients dials each server once per scan.
type flightClients map[string]flight.Client

func (fc flightClients) get(uri string) (flight.Client, error) {
	if c, ok := fc[uri]; ok {
		return c, nil
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "grpc" || u.Host == "" {
		return nil, fmt.Errorf("location %q: not grpc://host:port", uri)
	}
	c, err := flight.NewClientWithMiddleware(u.Host, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", uri, err)
	}
	fc[uri] = c
	return c, nil
}

func (fc flightClients) close() {
	for _, c := range fc {
		c.Close()
	}
}

// kvScan is a whole-table read of a table kv (k int PRIMARY KEY, v text)
// through one server: its plan's endpoints, each read at its first
// location, and the rows.
type kvScan struct {
	Rows      map[int32]string
	Endpoints []*flight.FlightEndpoint
	// Locations are every location any endpoint names, a replica's
	// server each.
	Locations map[string]bool
	ReadAt    map[string]int // rows read from each location
}

// scanKV plans ks.table through the server at uri and reads every
// endpoint; a row read twice is an error (a scan returns every row
// once).
func scanKV(ctx context.Context, uri, ks, table string) (*kvScan, error) {
	fc := flightClients{}
	defer fc.close()
	seed, err := fc.get(uri)
	if err != nil {
		return nil, err
	}
	info, err := seed.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{ks, table}})
	if err != nil {
		return nil, fmt.Errorf("plan %s.%s at %s: %w", ks, table, uri, err)
	}
	s := &kvScan{Rows: map[int32]string{}, Endpoints: info.Endpoint, Locations: map[string]bool{}, ReadAt: map[string]int{}}
	for i, ep := range info.Endpoint {
		at := uri
		for j, l := range ep.Location {
			s.Locations[l.Uri] = true
			if j == 0 {
				at = l.Uri
			}
		}
		c, err := fc.get(at)
		if err != nil {
			return nil, err
		}
		n, err := readKV(ctx, c, ep.Ticket, s.Rows)
		if err != nil {
			return nil, fmt.Errorf("read endpoint %d of %s.%s at %s: %w", i, ks, table, at, err)
		}
		s.ReadAt[at] += n
	}
	return s, nil
}

// readKV reads one endpoint's stream into rows.
func readKV(ctx context.Context, c flight.Client, ticket *flight.Ticket, rows map[int32]string) (int, error) {
	stream, err := c.DoGet(ctx, ticket)
	if err != nil {
		return 0, err
	}
	rd, err := flight.NewRecordReader(stream)
	if err != nil {
		return 0, fmt.Errorf("read the stream's schema: %w", err)
	}
	defer rd.Release()
	n := 0
	for rd.Next() {
		rec := rd.RecordBatch()
		ks, vs, err := kvColumns(rec)
		if err != nil {
			return n, err
		}
		for i := range int(rec.NumRows()) {
			k := ks.Value(i)
			if _, dup := rows[k]; dup {
				return n, fmt.Errorf("row k=%d read twice", k)
			}
			rows[k] = vs.Value(i)
			n++
		}
	}
	if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
		return n, err
	}
	return n, nil
}

func kvColumns(rec arrow.RecordBatch) (*array.Int32, *array.String, error) {
	sc := rec.Schema()
	ki, vi := sc.FieldIndices("k"), sc.FieldIndices("v")
	if len(ki) != 1 || len(vi) != 1 {
		return nil, nil, fmt.Errorf("schema %s: want columns k and v", sc)
	}
	k, ok1 := rec.Column(ki[0]).(*array.Int32)
	v, ok2 := rec.Column(vi[0]).(*array.String)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("schema %s: want k int32 and v utf8", sc)
	}
	return k, v, nil
}

// nodeInfo is the node-info action's answer (docs/flight-api.md).
type nodeInfo struct {
	HostID    string `json:"host_id"`
	Cassandra struct {
		Addr   string `json:"addr"`
		Up     bool   `json:"up"`
		Reason string `json:"reason"`
		Error  string `json:"error"`
	} `json:"cassandra"`
}

func getNodeInfo(ctx context.Context, uri string) (*nodeInfo, error) {
	fc := flightClients{}
	defer fc.close()
	c, err := fc.get(uri)
	if err != nil {
		return nil, err
	}
	// "node-info" is flightserver.ActionNodeInfo, one entry of the
	// server's action list (flightserver/actions.go).
	stream, err := c.DoAction(ctx, &flight.Action{Type: "node-info"})
	if err != nil {
		return nil, fmt.Errorf("node-info at %s: %w", uri, err)
	}
	res, err := stream.Recv()
	if err != nil {
		return nil, fmt.Errorf("node-info at %s: %w", uri, err)
	}
	var ni nodeInfo
	if err := json.Unmarshal(res.Body, &ni); err != nil {
		return nil, fmt.Errorf("node-info at %s: decode %q: %w", uri, res.Body, err)
	}
	return &ni, nil
}

// flightURI is the server's URI in a pod at ip.
func flightURI(ip string, port int) string { return fmt.Sprintf("grpc://%s:%d", ip, port) }

// sameRows is nil when got holds exactly want's rows.
func sameRows(got, want map[int32]string) error {
	var diffs []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("k=%d missing", k))
		} else if g != v {
			diffs = append(diffs, fmt.Sprintf("k=%d: %q, want %q", k, g, v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("k=%d not in CQL's answer", k))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	if len(diffs) > 10 {
		diffs = append(diffs[:10], fmt.Sprintf("... %d differences in all", len(diffs)))
	}
	return fmt.Errorf("%d rows, CQL %d: %s", len(got), len(want), strings.Join(diffs, "; "))
}
