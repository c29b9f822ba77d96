package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Key is one sampled partition key in both arms' forms.
type Key struct {
	JSON json.RawMessage // {"col": literal, ...}: one element of a command's "keys"
	CQL  []any           // bind values in partition key order
	// Clustering holds up to clusteringPerKey values of the first
	// clustering column of the key's rows, in clustering order (sampled
	// for the slice shape only).
	Clustering []ClusteringValue
}

// ClusteringValue is one clustering value, as a command literal and as a
// CQL bind value.
type ClusteringValue struct {
	JSON json.RawMessage
	CQL  any
	row  int // its row's place in the partition: clustering order
}

// clusteringPerKey bounds the clustering values kept per sampled key.
const clusteringPerKey = 16

// Sample is the outcome of sampling: the keys, and what was scanned.
type Sample struct {
	Keys       []Key
	Partitions int64 // distinct partitions seen
	Rows       int64 // rows scanned
	Skipped    int64 // partitions whose key a command cannot name (null)
}

// sampleStream separates the sampler's random stream from the ops'.
const sampleStream = 1 << 62

// sampleKeys reads the partition key columns of the whole table through
// the server (a projection, so only key columns cross the wire) and keeps
// a uniform random sample of up to n distinct partition keys: real keys,
// so point reads hit partitions that exist and the server computes their
// tokens, rather than random token ranges standing in for keys. With
// clustering it keeps a clustering value per key too (the table must have
// clustering columns).
//
// Endpoints are read one after another in token order, so the same seed
// over the same data gives the same sample.
func sampleKeys(ctx context.Context, l *Locations, s *TableSchema, n int, splits int, seed uint64, clustering bool) (*Sample, error) {
	cols := s.KeyNames()
	var ck *ClusteringColumn
	if clustering {
		if s.Clustering == nil {
			return nil, fmt.Errorf("sample keys of %s.%s: the slice shape needs a clustering column", s.Keyspace, s.Table)
		}
		ck = s.Clustering
		cols = append(cols, ck.Name)
	}
	cmd := map[string]any{"version": 1, "keyspace": s.Keyspace, "table": s.Table, "columns": cols, "splits": splits}
	body, err := json.Marshal(cmd)
	if err != nil {
		return nil, fmt.Errorf("sample keys: %w", err)
	}
	info, err := l.planner.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: body})
	if err != nil {
		return nil, fmt.Errorf("sample keys of %s.%s: plan: %w", s.Keyspace, s.Table, err)
	}
	rng := rand.New(rand.NewPCG(seed, sampleStream))
	out := &Sample{}
	var prev []byte
	kept, row := -1, 0 // the current partition's slot in out.Keys, or -1; its rows so far
	for _, ep := range info.Endpoint {
		_, err := l.each(ctx, ep, func(c flight.Client) (Result, int, error) {
			n, err := eachKeyRow(ctx, c, ep.Ticket, s, ck, func(lit []byte, vals []any, null bool, cv *ClusteringValue) {
				out.Rows++
				// Rows come in token order, then clustering order: the rows
				// of one partition are adjacent and never span endpoints.
				if bytes.Equal(lit, prev) {
					row++
					if kept >= 0 && cv != nil {
						keepClustering(&out.Keys[kept], *cv, row, rng)
					}
					return
				}
				prev = append(prev[:0], lit...)
				kept, row = -1, 0
				if null {
					out.Skipped++
					return
				}
				// Reservoir sampling (algorithm R): each partition ends up
				// kept with probability n/partitions.
				seen := out.Partitions
				out.Partitions++
				k := Key{JSON: append(json.RawMessage{}, lit...), CQL: vals}
				if seen < int64(n) {
					out.Keys = append(out.Keys, k)
					kept = len(out.Keys) - 1
				} else if j := rng.Int64N(seen + 1); j < int64(n) {
					out.Keys[j] = k
					kept = int(j)
				}
				if kept >= 0 && cv != nil {
					keepClustering(&out.Keys[kept], *cv, 0, rng)
				}
			})
			return Result{}, n, err
		})
		if err != nil {
			return nil, fmt.Errorf("sample keys of %s.%s: %w", s.Keyspace, s.Table, err)
		}
	}
	if clustering {
		// Only keys with a row: a static-only partition has no
		// clustering value to slice by.
		w := 0
		for _, k := range out.Keys {
			if len(k.Clustering) > 0 {
				slices.SortFunc(k.Clustering, func(a, b ClusteringValue) int { return a.row - b.row })
				out.Keys[w] = k
				w++
			}
		}
		out.Keys = out.Keys[:w]
	}
	if len(out.Keys) == 0 {
		return nil, fmt.Errorf("sample keys of %s.%s: the table has no partition a command can name (%d rows, %d skipped)", s.Keyspace, s.Table, out.Rows, out.Skipped)
	}
	return out, nil
}

// keepClustering adds the value of a kept key's row-th row to its
// sample, a reservoir of clusteringPerKey values.
func keepClustering(k *Key, cv ClusteringValue, row int, rng *rand.Rand) {
	cv.row = row
	cv.JSON = append(json.RawMessage{}, cv.JSON...)
	if len(k.Clustering) < clusteringPerKey {
		k.Clustering = append(k.Clustering, cv)
	} else if j := rng.IntN(row + 1); j < clusteringPerKey {
		k.Clustering[j] = cv
	}
}

// eachKeyRow calls f with each row's key as a JSON object and as CQL
// values; null reports a key with a null component (vals is then nil).
// With ck, f also gets the row's value of that clustering column (nil
// when null).
func eachKeyRow(ctx context.Context, c flight.Client, t *flight.Ticket, s *TableSchema, ck *ClusteringColumn, f func(lit []byte, vals []any, null bool, cv *ClusteringValue)) (batches int, err error) {
	stream, err := c.DoGet(ctx, t)
	if err != nil {
		return 0, fmt.Errorf("do get: %w", err)
	}
	rd, err := flight.NewRecordReader(stream, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return 0, fmt.Errorf("read stream schema: %w", err)
	}
	defer rd.Release()
	names := make([][]byte, len(s.Key))
	for i, k := range s.Key {
		names[i], _ = json.Marshal(k.Name)
	}
	var lit []byte
	for rd.Next() {
		rec := rd.RecordBatch()
		batches++
		cols := make([]int, len(s.Key))
		for i, k := range s.Key {
			idx := rec.Schema().FieldIndices(k.Name)
			if len(idx) != 1 {
				return batches, fmt.Errorf("stream has no column %q", k.Name)
			}
			cols[i] = idx[0]
		}
		ckCol := -1
		if ck != nil {
			idx := rec.Schema().FieldIndices(ck.Name)
			if len(idx) != 1 {
				return batches, fmt.Errorf("stream has no column %q", ck.Name)
			}
			ckCol = idx[0]
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var cv *ClusteringValue
			if ckCol >= 0 {
				l, v, err := keyValue(ck.CQLType, rec.Column(ckCol), r)
				if err != nil && err != errNullKey {
					return batches, fmt.Errorf("column %s: %w", ck.Name, err)
				}
				if err == nil {
					cv = &ClusteringValue{JSON: l, CQL: v}
				}
			}
			lit = append(lit[:0], '{')
			vals := make([]any, len(s.Key))
			null := false
			for i, k := range s.Key {
				l, v, err := keyValue(k.CQLType, rec.Column(cols[i]), r)
				if err == errNullKey {
					null, l = true, json.RawMessage("null")
				} else if err != nil {
					return batches, fmt.Errorf("column %s: %w", k.Name, err)
				}
				if i > 0 {
					lit = append(lit, ',')
				}
				lit = append(append(append(lit, names[i]...), ':'), l...)
				vals[i] = v
			}
			lit = append(lit, '}')
			if null {
				vals = nil
			}
			f(lit, vals, null, cv)
		}
	}
	if err := rd.Err(); err != nil {
		return batches, fmt.Errorf("read stream: %w", err)
	}
	return batches, nil
}
