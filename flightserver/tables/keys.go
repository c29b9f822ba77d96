package tables

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// EncodeKeys serializes the partition keys of a command: each must bind
// every partition key column. Duplicates are read once, and count once
// against request.MaxKeys.
func (t *Table) EncodeKeys(keys []map[string]json.RawMessage) ([][]byte, error) {
	var out [][]byte
	seen := map[string]bool{}
	parts := make([][]byte, t.keyComponents)
	for i, k := range keys {
		if len(k) != t.keyComponents {
			return nil, fmt.Errorf("key %d: binds %d columns, the partition key has %d", i, len(k), t.keyComponents)
		}
		for name, raw := range k {
			ci, ok := t.byName[name]
			if !ok || t.columns[ci].From != arrowenc.FromKey {
				return nil, fmt.Errorf("key %d: %q is not a partition key column", i, name)
			}
			c := t.columns[ci]
			v, err := encodeValue(c.Spec.Type, raw)
			if err != nil {
				return nil, fmt.Errorf("key %d, column %s: %w", i, name, err)
			}
			if t.keyComponents > 1 && len(v) > math.MaxUint16 {
				return nil, fmt.Errorf("key %d, column %s: longer than 65535 bytes", i, name)
			}
			parts[c.Index] = v
		}
		var key []byte
		if t.keyComponents == 1 {
			key = parts[0]
		} else {
			key = marshal.AppendComposite(nil, parts...)
		}
		if len(key) > request.MaxKeyBytes {
			return nil, fmt.Errorf("key %d: %d bytes serialized, over Cassandra's %d", i, len(key), request.MaxKeyBytes)
		}
		if !seen[string(key)] {
			if len(out) == request.MaxKeys {
				return nil, fmt.Errorf("more than %d distinct keys", request.MaxKeys)
			}
			seen[string(key)] = true
			out = append(out, key)
		}
	}
	return out, nil
}

// EncodeSlice serializes a clustering slice's bounds.
func (t *Table) EncodeSlice(c *request.ClusteringSlice) (*request.TicketSlice, error) {
	if c == nil {
		return nil, nil
	}
	ts := &request.TicketSlice{}
	for i, b := range []*request.ClusteringBound{c.Start, c.End} {
		if b == nil {
			continue
		}
		if len(b.Values) > len(t.clustering) {
			return nil, fmt.Errorf("clustering bound: %d values, the table has %d clustering columns", len(b.Values), len(t.clustering))
		}
		vals := make([][]byte, len(b.Values))
		for j, raw := range b.Values {
			v, err := encodeValue(t.clustering[j], raw)
			if err != nil {
				return nil, fmt.Errorf("clustering bound value %d: %w", j, err)
			}
			if len(v) > request.MaxKeyBytes {
				return nil, fmt.Errorf("clustering bound value %d: %d bytes serialized, over Cassandra's %d", j, len(v), request.MaxKeyBytes)
			}
			vals[j] = v
		}
		if i == 0 {
			ts.HasStart, ts.Start, ts.StartIncl = true, vals, b.Inclusive
		} else {
			ts.HasEnd, ts.End, ts.EndIncl = true, vals, b.Inclusive
		}
	}
	return ts, nil
}
