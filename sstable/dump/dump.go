package dump

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/token"
)

// Options select what to dump.
type Options struct {
	// Keys keeps only these partitions, each given as sstabledump prints
	// it (components of a composite key joined by ':').
	Keys []string
	// TokenRange keeps partitions whose token is in (Start, End]; Start >=
	// End wraps around the ring, and Start == End is the full ring.
	TokenRange *token.Range
	// Columns keeps only cells of these columns (all when empty).
	Columns []string
}

func (o Options) keep(r *sstable.Reader, key []byte) (bool, error) {
	if o.TokenRange != nil && !o.TokenRange.Contains(token.Of(key)) {
		return false, nil
	}
	if len(o.Keys) == 0 {
		return true, nil
	}
	parts, err := keyStrings(r.Schema.Key, key)
	if err != nil {
		return false, err
	}
	k := strings.Join(parts, ":")
	for _, want := range o.Keys {
		if k == want {
			return true, nil
		}
	}
	return false, nil
}

// Partitions renders every partition of the SSTable as sstabledump does
// (a JSON array of partition objects).
func Partitions(r *sstable.Reader, opts Options) ([]any, error) {
	s := r.Scan()
	if len(opts.Columns) > 0 {
		s.Project(opts.Columns)
	}
	var out []any
	for s.NextPartition() {
		ph := *s.Partition()
		keep, err := opts.keep(r, ph.Key)
		if err != nil {
			return nil, fmt.Errorf("render key at %d: %w", ph.Position, err)
		}
		if !keep {
			continue
		}
		p, err := partition(r, s, ph, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Write writes the dump as indented JSON.
func Write(w io.Writer, r *sstable.Reader, opts Options) error {
	ps, err := Partitions(r, opts)
	if err != nil {
		return err
	}
	if ps == nil {
		ps = []any{}
	}
	b, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return fmt.Errorf("encode dump: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func partition(r *sstable.Reader, s *sstable.Scanner, ph sstable.PartitionHeader, opts Options) (object, error) {
	key, err := keyStrings(r.Schema.Key, ph.Key)
	if err != nil {
		return nil, fmt.Errorf("render key at %d: %w", ph.Position, err)
	}
	var rows []any
	// NB: sstabledump's partition position is where its scanner stands
	// after the partition header and the static row, and the static
	// block shows that same position.
	position := ph.End
	for s.NextUnfiltered() {
		u := s.Unfiltered()
		if u.Static {
			position = u.End
		}
		rendered, err := unfiltered(r, u, position)
		if err != nil {
			return nil, fmt.Errorf("render unfiltered at %d: %w", u.Position, err)
		}
		if rendered != nil {
			rows = append(rows, rendered)
		}
	}
	p := object{{"table kind", "REGULAR"}}
	po := object{{"key", key}, {"position", position}}
	if !ph.Deletion.Live() {
		po.set("deletion_info", deletionInfo(ph.Deletion))
	}
	p.set("partition", po)
	if rows == nil {
		rows = []any{}
	}
	p.set("rows", rows)
	return p, nil
}

func unfiltered(r *sstable.Reader, u *sstable.Unfiltered, staticEnd int64) (any, error) {
	if u.Marker {
		return marker(r, u)
	}
	if u.Static && len(u.Cells) == 0 && len(u.Complex) == 0 && u.Deletion.Live() {
		return nil, nil // Cassandra writes an empty static row; sstabledump shows none
	}
	o := object{}
	if u.Static {
		o.set("type", "static_block")
	} else {
		o.set("type", "row")
	}
	if u.Static {
		o.set("position", staticEnd)
	} else {
		o.set("position", u.Position)
	}
	if !u.Static && len(u.Clustering) > 0 {
		c, err := clustering(r, u.Clustering)
		if err != nil {
			return nil, err
		}
		o.set("clustering", c)
	}
	if u.Liveness.Timestamp != sstable.NoTimestamp {
		li := object{{"tstamp", micros(u.Liveness.Timestamp)}}
		if u.Liveness.TTL > 0 {
			li.set("ttl", u.Liveness.TTL)
			li.set("expires_at", seconds(u.Liveness.LocalExpirationTime))
			li.set("expired", u.Liveness.LocalExpirationTime < time.Now().Unix())
		}
		o.set("liveness_info", li)
	}
	if !u.Deletion.Live() {
		o.set("deletion_info", deletionInfo(u.Deletion))
	}
	cells, err := cells(r, u)
	if err != nil {
		return nil, err
	}
	o.set("cells", cells)
	return o, nil
}

func cells(r *sstable.Reader, u *sstable.Unfiltered) ([]any, error) {
	cols := r.Schema.Columns(u.Static)
	out := []any{}
	ci := 0 // next complex deletion to emit
	emitComplex := func(upTo int) {
		for ; ci < len(u.Complex) && u.Complex[ci].Column <= upTo; ci++ {
			cd := u.Complex[ci]
			out = append(out, object{{"name", cols[cd.Column].Name}, {"deletion_info", deletionInfo(cd.Deletion)}})
		}
	}
	for i := range u.Cells {
		c := &u.Cells[i]
		col := &cols[c.Column]
		emitComplex(c.Column)
		o := object{{"name", col.Name}}
		vt := col.Type
		if col.Complex {
			p, t, err := path(col.Type, c.Path)
			if err != nil {
				return nil, fmt.Errorf("render path of %s: %w", col.Name, err)
			}
			o.set("path", []string{p})
			vt = t
		}
		if c.IsTombstone() {
			o.set("deletion_info", object{{"local_delete_time", seconds(c.LocalDeletionTime)}})
		} else {
			v, err := ValueJSON(vt, c.Value)
			if err != nil {
				return nil, fmt.Errorf("render %s: %w", col.Name, err)
			}
			o.set("value", json.RawMessage(v))
		}
		if u.Liveness.Timestamp == sstable.NoTimestamp || c.Timestamp != u.Liveness.Timestamp {
			o.set("tstamp", micros(c.Timestamp))
		}
		if c.IsExpiring() && (u.Liveness.Timestamp == sstable.NoTimestamp || c.TTL != u.Liveness.TTL) {
			o.set("ttl", c.TTL)
			o.set("expires_at", seconds(c.LocalDeletionTime))
			o.set("expired", c.LocalDeletionTime <= time.Now().Unix())
		}
		out = append(out, o)
	}
	emitComplex(len(cols))
	return out, nil
}

// path renders a complex cell's path as sstabledump does (the element's
// getString, or a UDT field's name) and returns the type of its value.
func path(t *marshal.Type, p []byte) (string, *marshal.Type, error) {
	switch t.Kind {
	case marshal.List:
		s, err := ValueString(&marshal.Type{Kind: marshal.TimeUUID}, p)
		return s, t.Elems[0], err
	case marshal.Set:
		s, err := ValueString(t.Elems[0], p)
		return s, &marshal.Type{Kind: marshal.Empty}, err
	case marshal.Map:
		s, err := ValueString(t.Elems[0], p)
		return s, t.Elems[1], err
	case marshal.UDT:
		if len(p) == 2 {
			if i := int(binary.BigEndian.Uint16(p)); i < len(t.Elems) {
				return t.FieldNames[i], t.Elems[i], nil
			}
		}
		return "", nil, fmt.Errorf("udt cell path %x names no field", p)
	}
	return "", nil, fmt.Errorf("cell path on non-collection type %s", t)
}

func marker(r *sstable.Reader, u *sstable.Unfiltered) (any, error) {
	c, err := clustering(r, u.Clustering)
	if err != nil {
		return nil, err
	}
	bound := func(inclusive bool, d sstable.DeletionTime) object {
		o := object{}
		if inclusive {
			o.set("type", "inclusive")
		} else {
			o.set("type", "exclusive")
		}
		if len(u.Clustering) > 0 {
			o.set("clustering", c)
		}
		o.set("deletion_info", deletionInfo(d))
		return o
	}
	k := u.Kind
	if k.IsBoundary() {
		// The open (start) side carries the start deletion, the close
		// (end) side the end deletion.
		startIncl := k == sstable.ExclEndInclStartBoundary
		return object{
			{"type", "range_tombstone_boundary"},
			{"start", bound(startIncl, u.MarkerDel)},
			{"end", bound(!startIncl, u.MarkerEndDel)},
		}, nil
	}
	side := "end"
	if k.IsStart() {
		side = "start"
	}
	incl := k == sstable.InclStartBound || k == sstable.InclEndBound
	return object{{"type", "range_tombstone_bound"}, {side, bound(incl, u.MarkerDel)}}, nil
}

// clustering renders each value with toJSONString; a marker's prefix that
// is shorter than the clustering is padded with "*" as sstabledump does.
func clustering(r *sstable.Reader, vals [][]byte) ([]any, error) {
	out := make([]any, 0, len(r.Schema.Clustering))
	for i, t := range r.Schema.Clustering {
		if i >= len(vals) {
			out = append(out, "*")
			continue
		}
		if vals[i] == nil {
			out = append(out, nil)
			continue
		}
		v, err := ValueJSON(t, vals[i])
		if err != nil {
			return nil, fmt.Errorf("render clustering %d: %w", i, err)
		}
		out = append(out, json.RawMessage(v))
	}
	return out, nil
}

// keyStrings renders a partition key as sstabledump does: one getString
// per component of a composite key.
func keyStrings(t *marshal.Type, key []byte) ([]string, error) {
	parts, err := marshal.SplitKey(t, key)
	if err != nil {
		return nil, err
	}
	types := marshal.KeyTypes(t)
	out := make([]string, len(parts))
	for i, p := range parts {
		if out[i], err = ValueString(types[i], p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func deletionInfo(d sstable.DeletionTime) object {
	return object{{"marked_deleted", micros(d.MarkedForDeleteAt)}, {"local_delete_time", seconds(d.LocalDeletionTime)}}
}

// micros and seconds print an instant as Java's Instant.toString does:
// ISO-8601 UTC with the fraction in groups of three digits, none if zero.
func micros(us int64) string {
	sec, frac := floorDiv(us, 1_000_000)
	return instant(sec, frac*1000)
}

func seconds(s int64) string { return instant(s, 0) }

func floorDiv(a, b int64) (int64, int64) {
	q, m := a/b, a%b
	if m < 0 {
		q, m = q-1, m+b
	}
	return q, m
}

func instant(sec, nanos int64) string {
	t := time.Unix(sec, nanos).UTC()
	s := t.Format("2006-01-02T15:04:05")
	if y := t.Year(); y > 9999 {
		s = "+" + s
	}
	switch {
	case nanos == 0:
	case nanos%1_000_000 == 0:
		s += fmt.Sprintf(".%03d", nanos/1_000_000)
	case nanos%1000 == 0:
		s += fmt.Sprintf(".%06d", nanos/1000)
	default:
		s += fmt.Sprintf(".%09d", nanos)
	}
	return s + "Z"
}
