package arrowenc

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Where a reconciled row holds an output column's value (Column.From).
const (
	FromKey        = iota // a component of the partition key (Row.Key)
	FromClustering        // a clustering value (Row.Clustering)
	FromValue             // a regular or static column's value (Row.Values)
)

// Column is an output column of a table: its spec and where a
// reconciled row holds its value.
type Column struct {
	Spec  ColumnSpec
	From  int // FromKey, FromClustering or FromValue
	Index int // key component, clustering position, or reconcile column
}

type outColumn struct {
	from  int
	index int // key component, clustering position, or reconcile column
	app   *Appender
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

// Batcher appends reconciled rows straight into reused Arrow builders and
// cuts record batches bounded by rows and by an estimate of their bytes,
// so every IPC message stays well below gRPC's message limit. It is what
// a DoGet stream encodes with.
//
// A value that does not decode fails Add with the Appender's error and
// leaves the row half appended: the caller ends the stream, and Reset
// then refuses to empty the Batcher for another, its builders no longer
// aligned.
type Batcher struct {
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
	// broken: an Append failed mid-row, so the builders hold a partial
	// row and must not serve another stream.
	broken bool
}

// NewBatcher returns a Batcher of the columns cols[i] for i in projection,
// whose schema is schema (one field per projected column, in order), for
// a table whose partition key has keyComponents components. A batch is
// cut at maxRows rows or about maxBytes bytes, whichever comes first.
func NewBatcher(mem memory.Allocator, schema *arrow.Schema, cols []Column, projection []int, keyComponents, maxRows, maxBytes int) (*Batcher, error) {
	b := &Batcher{
		rb:        array.NewRecordBuilder(mem, schema),
		composite: keyComponents > 1,
		keyParts:  make([][]byte, keyComponents),
		maxRows:   maxRows,
		maxBytes:  maxBytes,
	}
	for i, ci := range projection {
		c := cols[ci]
		app, err := NewAppender(c.Spec.Type, b.rb.Field(i))
		if err != nil {
			b.rb.Release()
			return nil, fmt.Errorf("encode column %s: %w", c.Spec.Name, err)
		}
		oc := outColumn{from: c.From, index: c.Index, app: app}
		oc.data, _ = b.rb.Field(i).(dataBuilder)
		b.cols = append(b.cols, oc)
	}
	return b, nil
}

// Schema is the schema of the batches.
func (b *Batcher) Schema() *arrow.Schema { return b.rb.Schema() }

// Fits reports whether the Batcher cuts batches at these bounds, so that
// a pooled one may serve a stream that asks for them.
func (b *Batcher) Fits(maxRows, maxBytes int) bool {
	return b.maxRows == maxRows && b.maxBytes == maxBytes
}

// Add appends one row; full reports that the batch should be sent.
func (b *Batcher) Add(r *reconcile.Row) (full bool, err error) {
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
		case FromKey:
			v = b.keyParts[c.index]
		case FromClustering:
			if r.Clustering != nil && c.index < len(r.Clustering) {
				v = r.Clustering[c.index]
			}
		default:
			v = r.Values[c.index].Bytes
		}
		if err := c.app.Append(v); err != nil {
			b.broken = true
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
func (b *Batcher) splitKey(key []byte) error {
	if !b.composite {
		b.keyParts[0] = key
		return nil
	}
	return marshal.SplitComposite(key, b.keyParts)
}

// Flush returns the batch built so far (nil when empty) and starts the
// next one in the same builders. The caller releases the batch.
func (b *Batcher) Flush() arrow.RecordBatch {
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
func (b *Batcher) reserve() {
	b.rb.Reserve(b.maxRows)
	for i := range b.cols {
		c := &b.cols[i]
		if c.data != nil && c.lastData > 0 {
			c.data.ReserveData(min(c.lastData, b.maxBytes) + c.lastData/8)
		}
	}
}

// Reset empties the Batcher for another stream, dropping the rows of a
// stream that ended early, and reports whether it may serve one: false
// after a failed Add, whose half row is still in the builders (the
// caller then releases it).
func (b *Batcher) Reset() bool {
	if b.broken {
		return false
	}
	if b.rows > 0 { // the stream ended early: drop the rows it held
		b.rb.NewRecordBatch().Release()
	}
	b.rows, b.bytes, b.reserveNext = 0, 0, false
	return true
}

// Release releases the builders.
func (b *Batcher) Release() { b.rb.Release() }
