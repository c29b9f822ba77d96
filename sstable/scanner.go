package sstable

import (
	"bytes"
	"context"
	"sync"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
	"github.com/sstable-flight/sstable-flight/token"
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

	// Restrictions: token segments, or one exact key.
	segs  []segment
	seg   int
	key   []byte
	done  bool
	token token.Token
	slice *sliceState
	// verify is the index's claim about the first partition read.
	verify *check
}

// segment is a token range (after, upTo] scanned from Data.db offset
// start; fromMin and toMax drop the lower and upper bound.
type segment struct {
	after, upTo    token.Token
	fromMin, toMax bool
	start          int64
	check          check
}

func (g segment) contains(t token.Token) bool {
	return (g.fromMin || t > g.after) && (g.toMax || t <= g.upTo)
}

// Scan starts a sequential scan of the whole Data.db.
func (r *Reader) Scan() *Scanner { return r.scan(context.Background()) }

// scan is Scan for a caller whose reads wait no longer than ctx.
func (r *Reader) scan(ctx context.Context) *Scanner {
	s := &Scanner{r: r, dc: decoder{schema: r.Schema, header: &r.Stats.Header, version: r.Version}}
	s.st.ctx = ctx
	s.st.reset(r.data, r.dataPath, 0)
	return s
}

// ScanRange scans the partitions whose Murmur3 token is in (start, end]:
// start >= end wraps around the ring ((start, max] then [min, end]) and
// start == end is the whole ring, as in Cassandra. The index positions
// the scan at the first partition after start; each partition's token
// is checked, so the result is exact.
func (r *Reader) ScanRange(start, end int64) (*Scanner, error) {
	return r.ScanRangeContext(context.Background(), start, end)
}

// ScanRangeContext is ScanRange for a caller that waits for storage no
// longer than ctx: every read the scanner makes, of the index as of
// Data.db, returns ctx's error once ctx ends (with an FS guarded by an
// IOGuard, guard.go; other files' reads return when they return).
func (r *Reader) ScanRangeContext(ctx context.Context, start, end int64) (*Scanner, error) {
	if !r.Murmur3() {
		return nil, r.errPartitioner("scan a token range")
	}
	var segs []segment
	switch start, end := token.Token(start), token.Token(end); {
	case start == end, start == token.Min && end == token.Max:
		// (min, max] is the whole ring too: Murmur3 never yields MinInt64.
		segs = []segment{{fromMin: true, toMax: true}}
	case start < end:
		segs = []segment{{after: start, upTo: end, fromMin: start == token.Min, toMax: end == token.Max}}
	default:
		segs = []segment{{after: start, toMax: true}, {fromMin: true, upTo: end}}
	}
	for i := range segs {
		if segs[i].fromMin {
			continue
		}
		pos, c, err := r.firstAfter(ctx, segs[i].after)
		if err != nil {
			return nil, err
		}
		segs[i].start, segs[i].check = pos, c
	}
	s := r.scan(ctx)
	if segs[0].fromMin && segs[0].toMax {
		// The whole ring: nothing to position or filter, so no token to
		// compute per partition.
		return s, nil
	}
	s.segs = segs
	s.st.reset(r.data, r.dataPath, segs[0].start)
	s.verify = &segs[0].check
	return s, nil
}

// Get positions a scanner on the partition with this (serialized) key:
// NextPartition returns it once, or false when the SSTable lacks it.
// Bloom filter, then summary and Index.db (BIG) or the trie (BTI).
func (r *Reader) Get(key []byte) (*Scanner, error) {
	return r.GetContext(context.Background(), key)
}

// GetContext is Get for a caller that waits for storage no longer than
// ctx, as ScanRangeContext.
func (r *Reader) GetContext(ctx context.Context, key []byte) (*Scanner, error) {
	if !r.Murmur3() {
		return nil, r.errPartitioner("look up a partition key")
	}
	s := pointScanner(r, ctx)
	s.key = append(s.key, key...)
	pos, c, found, err := r.locate(ctx, key)
	if err != nil {
		return nil, err
	}
	if !found {
		s.done = true
		return s, nil
	}
	s.verify = &c
	s.st.resetPoint(r.data, r.dataPath, pos, pointReadChunk)
	return s, nil
}

// scanners recycles scanners given back with Release: a point read's
// Scanner and its 4 KiB buffer were, with the index buffer, nearly all a
// lookup allocated.
var scanners sync.Pool

// pointScanner is a Scanner for Get, reusing a released one's buffers.
func pointScanner(r *Reader, ctx context.Context) *Scanner {
	old, _ := scanners.Get().(*Scanner)
	if old == nil {
		s := &Scanner{r: r, dc: decoder{schema: r.Schema, header: &r.Stats.Header, version: r.Version}}
		s.st.ctx = ctx
		return s
	}
	*old = Scanner{
		r:   r,
		dc:  decoder{schema: r.Schema, header: &r.Stats.Header, version: r.Version, present: old.dc.present[:0]},
		st:  stream{ctx: ctx, buf: old.st.buf, spare: old.st.spare},
		u:   Unfiltered{Clustering: old.u.Clustering[:0], Cells: old.u.Cells[:0], Complex: old.u.Complex[:0]},
		key: old.key[:0],
	}
	return old
}

// Release gives the scanner back for reuse by a later Get. Neither it
// nor anything it returned (keys, unfiltereds, cells) may be used after,
// and it must be released once: invariants builds poison what it
// returned and panic on a second Release.
func (s *Scanner) Release() {
	if s == nil {
		return
	}
	if invariants.Enabled {
		s.releaseChecked()
		return
	}
	// NB: the context goes too: a pooled scanner must not keep a
	// finished request's context alive.
	s.r, s.segs, s.verify, s.slice, s.st.ctx = nil, nil, nil, nil, nil
	scanners.Put(s)
}

// pointReadChunk is a point read's first Data.db read: most partitions
// fit, and a larger one grows the buffer.
const pointReadChunk = 4 << 10

// NextPartition moves to the next partition, skipping what is left of the
// current one. It returns false at the end of Data.db or on an error.
func (s *Scanner) NextPartition() bool {
	for {
		for s.inPartition && s.NextUnfiltered() {
		}
		if s.err != nil || s.done {
			return false
		}
		if s.st.atEnd() {
			if v := s.verify; v != nil && (v.key != nil || v.prefix != nil) {
				// The index named a partition here; the data has none.
				s.err = v.pastEnd(s.r, s.st.pos())
				return false
			}
			if !s.nextSegment() {
				return false
			}
			continue
		}
		for {
			s.dc.partitionHeader(s.st.window(), &s.ph)
			if s.err = s.st.finish(&s.st.d); s.err != errRetry {
				break
			}
		}
		if s.err != nil {
			return false
		}
		s.st.hold = &s.st.buf[0] // the key lives there
		s.st.holdKey(s.ph.Key)
		s.inPartition = true
		if v := s.verify; v != nil {
			s.verify = nil
			if s.err = v.verify(s.r, s.ph.Position, s.ph.Key); s.err != nil {
				s.inPartition = false
				return false
			}
		}
		if s.key != nil {
			// A point read returns one partition, if the index found it.
			s.done = true
			if !bytes.Equal(s.ph.Key, s.key) {
				s.inPartition = false
				return false
			}
			return true
		}
		if s.segs == nil {
			return true
		}
		s.token = token.Of(s.ph.Key)
		g := s.segs[s.seg]
		if g.contains(s.token) {
			return true
		}
		if !g.toMax && s.token > g.upTo {
			s.inPartition = false
			if !s.nextSegment() {
				return false
			}
		}
		// Below the segment's start (the index may land a little early):
		// skip this partition.
	}
}

// nextSegment moves to the next token segment; false when none is left.
func (s *Scanner) nextSegment() bool {
	if s.segs == nil || s.seg+1 >= len(s.segs) {
		s.done = true
		return false
	}
	s.seg++
	s.st.reset(s.r.data, s.r.dataPath, s.segs[s.seg].start)
	s.verify = &s.segs[s.seg].check
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
	if s.slice != nil {
		return s.nextSliced()
	}
	return s.nextRaw()
}

func (s *Scanner) nextRaw() bool {
	if !s.inPartition || s.err != nil {
		return false
	}
	more := false
	for {
		more = s.dc.unfiltered(s.st.window(), &s.u)
		if s.err = s.st.finish(&s.st.d); s.err != errRetry {
			break
		}
	}
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
