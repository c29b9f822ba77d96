package reconcile

import (
	"fmt"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// fastMerger is a merger over one source whose header has the table's n
// regular columns in table order, for driving fastRow by hand.
func fastMerger(n int, want []bool) (*Merger, *source) {
	t := &Table{}
	for i := range n {
		t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("c%03d", i), Type: &marshal.Type{Kind: marshal.Int}})
	}
	m := &Merger{
		row:      Row{Values: make([]Value, n)},
		setBits:  make([]uint64, n/64+1),
		nextBits: make([]uint64, n/64+1),
	}
	m.reset(t, Options{Now: 100, Columns: want})
	d := t.derive()
	m.plain = d.plain
	cols := make([]int, n)
	show := make([]int, n)
	for i := range cols {
		cols[i], show[i] = i, i
		if want != nil && !want[i] {
			show[i] = -1
		}
	}
	return m, &source{cols: [2][]int{cols}, show: show, plain: true}
}

// row builds a row setting the columns, each to its own index as value
// (a column listed negative is written as a tombstone).
func row(cols ...int) *sstable.Unfiltered {
	u := &sstable.Unfiltered{Liveness: sstable.LivenessInfo{Timestamp: 1}, Deletion: sstable.LiveDeletion}
	for _, c := range cols {
		if c < 0 {
			u.Cells = append(u.Cells, sstable.Cell{Column: -c - 1, Flags: 0x01, Timestamp: 2, LocalDeletionTime: 50})
			continue
		}
		u.Cells = append(u.Cells, sstable.Cell{Column: c, Timestamp: 2, Value: []byte{byte(c)}})
	}
	return u
}

// The fast path overwrites values in place while rows set the same
// columns, and must null exactly the columns a row leaves unset: after a
// row that set others, after a general-path row (which may have set any),
// with tombstones, with a projection, and in tables of more than 64
// columns, whose set spans several words.
func TestFastRowNullsUnsetColumns(t *testing.T) {
	for _, n := range []int{1, 3, 64, 65, 130} {
		for _, project := range []bool{false, true} {
			var want []bool
			if project {
				want = make([]bool, n)
				for i := range want {
					want[i] = i%2 == 0
				}
			}
			m, src := fastMerger(n, want)
			last := n - 1
			steps := []struct {
				name    string
				u       *sstable.Unfiltered
				general bool // as if the general path had written every value first
			}{
				{"first row", row(0, last), false},
				{"same columns", row(0, last), false},
				{"fewer columns", row(last), false},
				{"other columns", row(0, n/2), false},
				{"a tombstone where a value was", row(-1, n/2), false},
				{"no cells", row(), false},
				{"after a general-path row", row(n / 2), true},
				{"all columns again", row(0, n/2, last), false},
			}
			for _, st := range steps {
				name := fmt.Sprintf("%d columns, projected %v, %s", n, project, st.name)
				if st.general {
					m.fastValid = false
					for i := range m.row.Values {
						m.row.Values[i] = Value{Bytes: []byte("stale"), Timestamp: 9}
					}
				}
				live, ok := m.fastRow(src, st.u, sstable.LiveDeletion)
				if !ok || !live {
					t.Fatalf("%s: handled %v, live %v; want both", name, ok, live)
				}
				set := map[int]bool{}
				for _, c := range st.u.Cells {
					if c.Flags == 0 && (want == nil || want[c.Column]) {
						set[c.Column] = true
					}
				}
				for i, v := range m.row.Values {
					switch {
					case set[i] && (len(v.Bytes) != 1 || v.Bytes[0] != byte(i) || v.Timestamp != 2):
						t.Fatalf("%s: column %d is %x@%d, want %x@2", name, i, v.Bytes, v.Timestamp, []byte{byte(i)})
					case !set[i] && (v.Bytes != nil || v.Timestamp != NoTimestamp):
						t.Fatalf("%s: column %d is %x@%d, want null", name, i, v.Bytes, v.Timestamp)
					}
				}
			}
		}
	}
}
