package diskdamage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// Prefix is the SSTable the sweep damages in a mode's corpus timestamps
// table (mode is one of cassandratest.Modes): generation 3, which holds
// the newest values of some rows, so leaving it out shows. The corpus's
// SSTables carry their mode's name as version and its format.
func Prefix(mode string) string {
	return mode + "-3-" + cassandratest.Mode(mode).Format()
}

// Query is a named read of the damaged table.
type Query struct {
	Name string
	Desc *flight.FlightDescriptor
}

// Queries are the reads of keyspace.timestamps (the corpus table, one
// int partition key, one int clustering) the sweep makes: a scan, key
// reads (one key absent) and a clustering slice. key is the partition
// key column's name: "p" as the schema names it, "key" where the server
// names columns from SSTable headers (Sidecar mode without a schema).
func Queries(keyspace, key string) []Query {
	cmd := func(v map[string]any) *flight.FlightDescriptor {
		v["version"], v["keyspace"], v["table"] = 1, keyspace, "timestamps"
		b, _ := json.Marshal(v)
		return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
	}
	keys := []any{map[string]any{key: 1}, map[string]any{key: 2}, map[string]any{key: 3}, map[string]any{key: 99}}
	return []Query{
		{"scan", &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{keyspace, "timestamps"}}},
		{"keys", cmd(map[string]any{"keys": keys})},
		{"slice", cmd(map[string]any{"keys": keys[:1], "clustering": map[string]any{"start": map[string]any{"values": []any{2}, "inclusive": true}}})},
	}
}

// Rows reads a descriptor through GetFlightInfo and every endpoint and
// returns its rows as Render prints them, or the first error.
func Rows(ctx context.Context, c flight.FlightServiceClient, desc *flight.FlightDescriptor) (string, error) {
	info, err := c.GetFlightInfo(ctx, desc)
	if err != nil {
		return "", err
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, ep := range info.Endpoint {
		stream, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return "", err
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			return "", err
		}
		for rd.Next() {
			rec := rd.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		err = rd.Err()
		rd.Release()
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
	}
	return Render(recs), nil
}

// Render prints a read's rows, one line per row, columns by name.
func Render(recs []arrow.RecordBatch) string {
	var sb strings.Builder
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			for c := 0; c < int(r.NumCols()); c++ {
				fmt.Fprintf(&sb, "%s=%s|", r.ColumnName(c), r.Column(c).ValueStr(i))
			}
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// Check holds one query's outcome to the sweep's rule: OK with want, the
// intact table's rows, or DATA_LOSS, FAILED_PRECONDITION or UNAVAILABLE
// whose message names the table directory relative to the data directory
// (tableDir, "<keyspace>/<table>-<id>/"; in Sidecar mode the file is in
// our Cassandra snapshot under it) and the damaged file, and shows no
// path under root, where the test keeps its directories.
func Check(rows string, err error, want, tableDir, victim, root string) error {
	if err == nil {
		if rows != want {
			return fmt.Errorf("OK with rows\n%swant\n%s", rows, want)
		}
		return nil
	}
	switch status.Code(err) {
	case codes.DataLoss, codes.FailedPrecondition, codes.Unavailable:
	default:
		return fmt.Errorf("%w; want DATA_LOSS, FAILED_PRECONDITION or UNAVAILABLE", err)
	}
	msg := status.Convert(err).Message()
	if !strings.Contains(msg, tableDir) || !strings.Contains(msg, "/"+victim) {
		return fmt.Errorf("%w; the message does not name %s…%s", err, tableDir, victim)
	}
	if strings.Contains(msg, root) {
		return fmt.Errorf("the message shows a server path under %s: %s", root, msg)
	}
	return nil
}
