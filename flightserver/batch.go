package flightserver

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/flightserver/arrowenc"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// source of an output column's value in a reconciled row.
const (
	fromKey = iota
	fromClustering
	fromValue
)

type outColumn struct {
	from  int
	index int // key component, clustering position, or reconcile column
	app   *arrowenc.Appender
	// data is the column's variable-length builder (nil for fixed-width
	// types) and lastData the bytes it held in the last batch.
	data     dataBuilder
	lastData int
}

// dataBuilder is a builder with a separate value-bytes buffer.
type dataBuilder interface {
	DataLen() int
	ReserveData(n int)
}

// batcher appends reconciled rows straight into reused Arrow builders and
// cuts record batches bounded by rows and by an estimate of their bytes,
// so every IPC message stays well below gRPC's message limit.
type batcher struct {
	rb        *array.RecordBuilder
	cols      []outColumn
	composite bool // the partition key has several components
	keyParts  [][]byte

	maxRows  int
	maxBytes int
	rows     int
	bytes    int
	// reserveNext: a batch was cut; size the builders when the next row
	// comes, not at the cut, so the last batch of a stream (and a point
	// read's only one) reserves nothing.
	reserveNext bool
}

func newBatcher(mem memory.Allocator, tbl *table, projection []int, maxRows, maxBytes int) (*batcher, error) {
	b := &batcher{
		rb:        array.NewRecordBuilder(mem, tbl.projectedSchema(projection)),
		composite: tbl.keyComponents > 1,
		keyParts:  make([][]byte, tbl.keyComponents),
		maxRows:   maxRows,
		maxBytes:  maxBytes,
	}
	for i, ci := range projection {
		c := tbl.columns[ci]
		app, err := arrowenc.NewAppender(c.spec.Type, b.rb.Field(i))
		if err != nil {
			b.rb.Release()
			return nil, fmt.Errorf("encode column %s: %w", c.spec.Name, err)
		}
		oc := outColumn{from: c.from, index: c.index, app: app}
		oc.data, _ = b.rb.Field(i).(dataBuilder)
		b.cols = append(b.cols, oc)
	}
	return b, nil
}

// add appends one row; full reports that the batch should be sent.
func (b *batcher) add(r *reconcile.Row) (full bool, err error) {
	if b.reserveNext {
		b.reserveNext = false
		b.reserve()
	}
	if len(b.cols) == 0 { // count only: nothing of the row is kept
		b.rows++
		return b.rows >= b.maxRows, nil
	}
	if err := b.splitKey(r.Key); err != nil {
		return false, err
	}
	size := 0
	for i := range b.cols {
		c := &b.cols[i]
		var v []byte
		switch c.from {
		case fromKey:
			v = b.keyParts[c.index]
		case fromClustering:
			if r.Clustering != nil && c.index < len(r.Clustering) {
				v = r.Clustering[c.index]
			}
		default:
			v = r.Values[c.index].Bytes
		}
		if err := c.app.Append(v); err != nil {
			return false, err
		}
		size += len(v) + 8 // value plus offsets, validity and slack
	}
	b.rows++
	b.bytes += size
	return b.rows >= b.maxRows || b.bytes >= b.maxBytes, nil
}

// splitKey splits the row's partition key into its components without
// allocating; a single-column key is itself. NB: marshal.SplitComposite's
// errors name the key; wrapping them here would give this per-row
// function a stack frame for the call and cost a tenth of its time.
func (b *batcher) splitKey(key []byte) error {
	if !b.composite {
		b.keyParts[0] = key
		return nil
	}
	return marshal.SplitComposite(key, b.keyParts)
}

// flush returns the batch built so far (nil when empty) and starts the
// next one in the same builders.
func (b *batcher) flush() arrow.RecordBatch {
	if b.rows == 0 {
		return nil
	}
	rows := b.rows
	b.rows, b.bytes = 0, 0
	for i := range b.cols {
		if d := b.cols[i].data; d != nil {
			b.cols[i].lastData = d.DataLen()
		}
	}
	if len(b.cols) == 0 {
		// A record of no columns has only its length; the builder of
		// no fields would give 0.
		return array.NewRecordBatch(b.rb.Schema(), nil, int64(rows))
	}
	rec := b.rb.NewRecordBatch()
	b.reserveNext = true
	return rec
}

// reserve sizes the builders for a full batch after one was cut: the
// record took their buffers, and growing new ones by doubling copied
// every value again (memmove was the top of the scan profile). The first
// batch grows as it goes, so a point read does not reserve a full
// batch's memory; a reservation made at the last cut of a stream was
// 9% of the server's CPU under concurrent point reads.
func (b *batcher) reserve() {
	b.rb.Reserve(b.maxRows)
	for i := range b.cols {
		c := &b.cols[i]
		if c.data != nil && c.lastData > 0 {
			c.data.ReserveData(min(c.lastData, b.maxBytes) + c.lastData/8)
		}
	}
}

func (b *batcher) release() { b.rb.Release() }

// batcherFor is a batcher for a stream of the table: for the full
// projection one a finished stream gave back (building the record
// builder and appenders per stream was 14% of the server's allocations
// under point reads), else a new one.
func (t *table) batcherFor(mem memory.Allocator, projection []int, maxRows, maxBytes int) (*batcher, error) {
	if t.isAll(projection) {
		if b, ok := t.batchers.Get().(*batcher); ok && b.maxRows == maxRows && b.maxBytes == maxBytes {
			return b, nil
		}
	}
	return newBatcher(mem, t, projection, maxRows, maxBytes)
}

// done ends a stream's use of the batcher: a full-projection one goes
// back to the table, emptied, for the next stream.
func (t *table) done(b *batcher, projection []int) {
	if !t.isAll(projection) {
		b.release()
		return
	}
	if b.rows > 0 { // the stream ended early: drop the rows it held
		b.rb.NewRecordBatch().Release()
	}
	b.rows, b.bytes, b.reserveNext = 0, 0, false
	t.batchers.Put(b)
}
