package reconcile_test

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// slicesPerRound is how many random clustering slices each case reads
// after each round, besides the whole table.
const slicesPerRound = 6

// sliceBound is one end of a clustering slice in CQL literals: a prefix of
// the clustering values in the table's clustering order (none: unbounded).
type sliceBound struct {
	vals []string
	incl bool
}

// randSlice is a clustering slice of one partition, as the Flight API and
// sstable.Slice take it: bounds in clustering order, so on a DESC column
// the start is the larger value.
type randSlice struct {
	p          int // index into pkVals
	start, end sliceBound
}

func (sl randSlice) String() string {
	side := func(b sliceBound) string {
		if len(b.vals) == 0 {
			return "unbounded"
		}
		return fmt.Sprintf("(%s) inclusive=%v", strings.Join(b.vals, ", "), b.incl)
	}
	return fmt.Sprintf("partition %d, start %s, end %s", sl.p, side(sl.start), side(sl.end))
}

// genSlice draws a slice of every bound kind: none, start only, end only
// or both; inclusive or exclusive; over a prefix of any length. Values
// come from the clustering pools, so bounds often equal a row's prefix
// or a range deletion's bound, where the bound rules matter.
func (c *randCase) genSlice() randSlice {
	r := c.sliceRand
	bound := func() sliceBound {
		b := sliceBound{incl: r.IntN(2) == 0}
		if len(c.ckVals) > 0 && r.IntN(2) == 0 {
			// A prefix of a written row: the bound sits on data.
			row := c.ckVals[r.IntN(len(c.ckVals))]
			b.vals = append(b.vals, row[:1+r.IntN(len(row))]...)
			return b
		}
		for i := range 1 + r.IntN(len(c.ck)) {
			b.vals = append(b.vals, c.ckPool[i][r.IntN(len(c.ckPool[i]))])
		}
		return b
	}
	sl := randSlice{p: r.IntN(len(c.pkVals))}
	switch r.IntN(8) {
	case 0:
	case 1, 2:
		sl.start = bound()
	case 3, 4:
		sl.end = bound()
	default:
		sl.start, sl.end = bound(), bound()
	}
	return sl
}

// sideWheres lists CQL restrictions (after the partition's) whose union is
// the rows on the inner side of b: after it for a start, before it for an
// end. A row is after prefix v when, for some i, its first i-1 values
// equal v's and its i-th follows v_i in that column's order, or when its
// prefix equals v and b is inclusive. CQL has no OR, so each disjunct is
// a query of its own; nil means every row.
func (c *randCase) sideWheres(b sliceBound, start bool) []string {
	if len(b.vals) == 0 {
		return nil
	}
	var out []string
	eq := ""
	for i, v := range b.vals {
		op := " < "
		if start != c.ck[i].desc {
			op = " > "
		}
		out = append(out, eq+" AND "+c.ck[i].name+op+v)
		eq += " AND " + c.ck[i].name + " = " + v
	}
	if b.incl {
		out = append(out, eq)
	}
	return out
}

// cqlPartition is a partition's rows read over CQL, and when.
type cqlPartition struct {
	rows []flatRow
	now  int64
}

// clusteringKey identifies a row of a partition by its canonical
// clustering values.
func (c *randCase) clusteringKey(r flatRow) string {
	return strings.Join(r.vals[len(c.pk):len(c.pk)+len(c.ck)], "\x00")
}

// cqlSliceRows is what CQL returns for the slice: the partition's rows, in
// CQL's order, that lie inside both bounds by CQL's own restrictions.
// Rows without clustering (static data only) are never in a slice.
func (c *randCase) cqlSliceRows(s *gocql.Session, sl randSlice) ([]flatRow, int64, error) {
	pkw := c.pkWhere(sl.p)
	// The partition's rows are read once per round; the merge is then
	// judged at the time they were read, which the TTLs count from.
	part, ok := c.partRows[sl.p]
	if !ok {
		rows, now, err := c.cqlRows(s, pkw)
		if err != nil {
			return nil, 0, err
		}
		part = cqlPartition{rows, now}
		if c.partRows == nil {
			c.partRows = map[int]cqlPartition{}
		}
		c.partRows[sl.p] = part
	}
	all, now := part.rows, part.now
	side := func(b sliceBound, start bool) (map[string]bool, error) {
		wheres := c.sideWheres(b, start)
		if wheres == nil {
			return nil, nil
		}
		ck := pkw + strings.Join(wheres, "|")
		if in, ok := c.sides[ck]; ok {
			return in, nil
		}
		in := map[string]bool{}
		if c.sides == nil {
			c.sides = map[string]map[string]bool{}
		}
		c.sides[ck] = in
		for _, w := range wheres {
			rows, _, err := c.cqlRows(s, pkw+w)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				in[c.clusteringKey(r)] = true
			}
		}
		return in, nil
	}
	after, err := side(sl.start, true)
	if err != nil {
		return nil, 0, err
	}
	before, err := side(sl.end, false)
	if err != nil {
		return nil, 0, err
	}
	var out []flatRow
	for _, r := range all {
		k := c.clusteringKey(r)
		if r.vals[len(c.pk)] == "null" || after != nil && !after[k] || before != nil && !before[k] {
			continue
		}
		out = append(out, r)
	}
	return out, now, nil
}

// literalBytes serializes a CQL literal of a native type as Cassandra
// does, by asking Cassandra (typeAsBlob), so the bounds handed to the
// reader are not our own encoding.
func (c *randCase) literalBytes(s *gocql.Session, t *randType, lit string) ([]byte, error) {
	if t == tBlob {
		return hex.DecodeString(strings.TrimPrefix(lit, "0x"))
	}
	k := t.cql + "\x00" + lit
	if b, ok := c.blobs[k]; ok {
		return b, nil
	}
	var b []byte
	q := fmt.Sprintf("SELECT %sAsBlob(%s) FROM system.local", t.cql, lit)
	if err := s.Query(q).Scan(&b); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	if c.blobs == nil {
		c.blobs = map[string][]byte{}
	}
	c.blobs[k] = b
	return b, nil
}

// sliceOf serializes the slice's partition key (CompositeType for several
// columns) and bounds.
func (c *randCase) sliceOf(s *gocql.Session, sl randSlice) ([]byte, sstable.Slice, error) {
	parts := make([][]byte, len(c.pk))
	for i, col := range c.pk {
		b, err := c.literalBytes(s, col.t, c.pkVals[sl.p][i])
		if err != nil {
			return nil, sstable.Slice{}, err
		}
		parts[i] = b
	}
	key := parts[0]
	if len(parts) > 1 {
		key = marshal.AppendComposite(nil, parts...)
	}
	bound := func(b sliceBound) (sstable.Bound, error) {
		out := sstable.Bound{Inclusive: b.incl}
		for i, v := range b.vals {
			vb, err := c.literalBytes(s, c.ck[i].t, v)
			if err != nil {
				return out, err
			}
			out.Values = append(out.Values, vb)
		}
		return out, nil
	}
	var out sstable.Slice
	var err error
	if out.Start, err = bound(sl.start); err != nil {
		return nil, out, err
	}
	out.End, err = bound(sl.end)
	return key, out, err
}

// compareSlices reads random clustering slices through reconcile.NewSlice
// and compares them with CQL's rows for the same bounds.
func (c *randCase) compareSlices(s *gocql.Session, st *randStats, fail func(string, ...any)) {
	if len(c.ck) == 0 {
		return
	}
	if c.sliceRand == nil {
		c.sliceRand = rand.New(rand.NewPCG(c.seed, 0x5eed5eed))
	}
	clear(c.sides) // the table changed since the last round
	clear(c.partRows)
	for range slicesPerRound {
		sl := c.genSlice()
		if !c.compareSlice(s, sl, st, fail) {
			return
		}
	}
}

// compareSlice compares one slice read through reconcile.NewSlice with
// CQL's rows for the same bounds; false when it failed.
func (c *randCase) compareSlice(s *gocql.Session, sl randSlice, st *randStats, fail func(string, ...any)) bool {
	key, ssl, err := c.sliceOf(s, sl)
	if err != nil {
		fail("slice %s: serialize: %v", sl, err)
		return false
	}
	want, now, err := c.cqlSliceRows(s, sl)
	if err != nil {
		fail("slice %s: CQL read: %v", sl, err)
		return false
	}
	got, _, err := c.mergedRows(now, func(table *reconcile.Table, readers []*sstable.Reader) (*reconcile.Merger, error) {
		return reconcile.NewSlice(table, readers, reconcile.Options{Now: now}, key, ssl)
	})
	if err != nil {
		fail("slice %s: merge: %v", sl, err)
		return false
	}
	if d := c.diffRows(want, got, now, st); d != "" {
		fail("slice %s: %s", sl, d)
		return false
	}
	st.slices++
	st.sliceRows += len(want)
	return true
}
