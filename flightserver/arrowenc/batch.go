package arrowenc

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Batch builds record batches of a set of columns: a RecordBuilder over
// Schema(cols) with one Appender per column. Building a record resets the
// builders in place, so one Batch serves a whole scan.
//
// Rows are appended column by column: Append(0, v0), Append(1, v1), ...
// A failed Append appends a null in the value's place, so the columns
// stay aligned and NewRecordBatch cannot panic over a short column; the
// caller decides whether the error ends the scan or the row keeps a null.
type Batch struct {
	rb   *array.RecordBuilder
	apps []*Appender
}

// NewBatch returns a Batch of the columns, allocating from mem.
func NewBatch(mem memory.Allocator, cols []ColumnSpec) (*Batch, error) {
	schema, err := Schema(cols)
	if err != nil {
		return nil, fmt.Errorf("new batch: %w", err)
	}
	rb := array.NewRecordBuilder(mem, schema)
	b := &Batch{rb: rb, apps: make([]*Appender, len(cols))}
	for i, c := range cols {
		if b.apps[i], err = NewAppender(c.Type, rb.Field(i)); err != nil {
			rb.Release()
			return nil, fmt.Errorf("new batch, column %q: %w", c.Name, err)
		}
	}
	return b, nil
}

// Schema returns the schema of the records.
func (b *Batch) Schema() *arrow.Schema { return b.rb.Schema() }

// Append appends serialized value v (nil: null) to column col; on error
// it appends a null instead.
func (b *Batch) Append(col int, v []byte) error {
	a := b.apps[col]
	if err := a.Append(v); err != nil {
		a.AppendNull()
		return fmt.Errorf("column %q: %w", b.rb.Schema().Field(col).Name, err)
	}
	return nil
}

// Appender returns column col's Appender.
func (b *Batch) Appender(col int) *Appender { return b.apps[col] }

// Len returns the number of rows appended since the last record: the
// length of the first column (0 without columns).
func (b *Batch) Len() int {
	if len(b.apps) == 0 {
		return 0
	}
	return b.apps[0].b.Len()
}

// Reserve makes room for n more rows in every column (not in the
// variable-width data or nested children, which grow as needed).
func (b *Batch) Reserve(n int) { b.rb.Reserve(n) }

// NewRecordBatch returns the rows appended so far as a record batch and
// resets the builders for the next one. The caller releases the record.
// Every column must have had the same number of Appends.
func (b *Batch) NewRecordBatch() arrow.RecordBatch { return b.rb.NewRecordBatch() }

// Release releases the builders.
func (b *Batch) Release() { b.rb.Release() }
