package sstable

import (
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// Scanner walks Data.db sequentially: partitions in token order, and the
// unfiltereds (static row, rows, range tombstone markers) of each. The
// values it returns are reused: a PartitionHeader or Unfiltered and the
// slices inside them are valid until the next call.
type Scanner struct {
	r           *Reader
	dc          decoder
	st          stream
	ph          PartitionHeader
	u           Unfiltered
	inPartition bool
	err         error
}

// Scan starts a sequential scan of the whole Data.db.
func (r *Reader) Scan() *Scanner {
	s := &Scanner{r: r, dc: decoder{schema: r.Schema, header: &r.Stats.Header, version: r.Version}}
	s.st.reset(r.data, r.dataPath, 0)
	return s
}

// NextPartition moves to the next partition, skipping what is left of the
// current one. It returns false at the end of Data.db or on an error.
func (s *Scanner) NextPartition() bool {
	for s.inPartition && s.NextUnfiltered() {
	}
	if s.err != nil {
		return false
	}
	if s.st.atEnd() {
		return false
	}
	if s.err = s.st.decode(func(d *base.Decbuf) { s.dc.partitionHeader(d, &s.ph) }); s.err != nil {
		return false
	}
	s.inPartition = true
	return true
}

// Project keeps only the cells of the named columns (static or regular);
// the cells of other columns are walked over but not returned. Rows keep
// their liveness and deletion, which decide whether a row exists. A name
// this SSTable's header does not list is not an error: the table may have
// the column while this SSTable holds none of its cells.
func (s *Scanner) Project(columns []string) {
	for k, cols := range [][]Column{s.r.Schema.Regular, s.r.Schema.Static} {
		s.dc.skip[k] = make([]bool, len(cols))
		for i := range s.dc.skip[k] {
			s.dc.skip[k][i] = true
		}
	}
	for _, name := range columns {
		for k, cols := range [][]Column{s.r.Schema.Regular, s.r.Schema.Static} {
			for i, c := range cols {
				if c.Name == name {
					s.dc.skip[k][i] = false
				}
			}
		}
	}
}

// Partition is the current partition's header.
func (s *Scanner) Partition() *PartitionHeader { return &s.ph }

// NextUnfiltered moves to the next row or marker of the current partition;
// false at its end (or on an error).
func (s *Scanner) NextUnfiltered() bool {
	if !s.inPartition || s.err != nil {
		return false
	}
	more := false
	s.err = s.st.decode(func(d *base.Decbuf) { more = s.dc.unfiltered(d, &s.u) })
	if s.err != nil || !more {
		s.inPartition = false
		return false
	}
	return true
}

// Unfiltered is the current row or marker.
func (s *Scanner) Unfiltered() *Unfiltered { return &s.u }

// Err is the first error met; a scan that stops early with a nil Err has
// read everything.
func (s *Scanner) Err() error { return s.err }
