package overlay

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/writer"
	"github.com/sstable-flight/sstable-flight/token"
)

// Runs seals the kept updates of table id that persisted does not cover
// (its SSTables' commit log intervals) into runs, in-memory SSTables
// under the table's header: the k-th update of each partition, in log
// order, in the k-th run. It returns the position of the log they
// reflect. The caller closes the readers. No updates: no runs. An error
// says why the table cannot be read from the log now (not a table of the
// overlay, entries pending a schema, updates lost): then it has no runs.
//
// Updates persisted covers are dropped: a later epoch's SSTables cover
// at least what this one's do.
func (o *Overlay) Runs(id commitlog.TableID, persisted commitlog.Persisted) ([]*sstable.Reader, commitlog.Position, error) {
	o.mu.Lock()
	t, ok := o.tables[id]
	through := o.through
	lost := o.lostLocked()
	tl := o.logs[id]
	var ups []update
	switch {
	case !ok:
		lost = fmt.Errorf("no schema for table %s", id)
	case lost != nil:
	case tl != nil && len(tl.lost) > 0:
		for _, err := range tl.lost {
			lost = err
			break
		}
	case tl != nil && tl.pending > 0:
		lost = fmt.Errorf("%d commit log entries of %s wait for its schema to be read again", tl.pending, t.Name)
	case tl != nil:
		tl.updates = slices.DeleteFunc(tl.updates, func(u update) bool {
			if persisted.Covers(u.e.pos) {
				o.release(u.e)
				return true
			}
			return false
		})
		ups = slices.Clone(tl.updates)
	}
	o.mu.Unlock()
	if lost != nil {
		return nil, through, lost
	}
	// By partition, each partition's updates in log order (a stable sort
	// of updates kept in log order).
	slices.SortStableFunc(ups, func(a, b update) int { return token.CompareDecorated(a.tok, a.key, b.tok, b.key) })
	var layers [][]update
	for i := 0; i < len(ups); {
		j := i + 1
		for j < len(ups) && ups[j].tok == ups[i].tok && bytes.Equal(ups[j].key, ups[i].key) {
			j++
		}
		for k := i; k < j; k++ {
			if k-i == len(layers) {
				layers = append(layers, nil)
			}
			layers[k-i] = append(layers[k-i], ups[k])
		}
		i = j
	}
	var runs []*sstable.Reader
	for k, layer := range layers {
		r, err := o.seal(id, t, k, layer)
		if err != nil {
			for _, r := range runs {
				r.Close()
			}
			return nil, through, fmt.Errorf("seal the overlay of %s: %w", t.Name, err)
		}
		runs = append(runs, r)
	}
	return runs, through, nil
}

// seal writes one run: updates of distinct partitions, in token order.
func (o *Overlay) seal(id commitlog.TableID, t Table, k int, layer []update) (*sstable.Reader, error) {
	h := t.Header
	h.MinTimestamp, h.MinLocalDeletionTime, h.MinTTL = 0, 0, 0
	mem := writer.NewMemory()
	w, err := writer.New(mem, writer.Options{Header: h, ID: strconv.Itoa(k + 1)})
	if err != nil {
		return nil, err
	}
	runCols := [2]map[string]int{indexByName(w.Schema().Regular), indexByName(w.Schema().Static)}
	dec := commitlog.NewDecoder(o.schemas.Load())
	var remap [2][]int
	for _, u := range layer {
		dec.Reset(u.e.mutation, u.e.mv)
		found := false
		for dec.NextUpdate() {
			pu := dec.Update()
			if pu.Table != id {
				continue
			}
			found = true
			var cols [2][]sstable.Column
			if pu.Columns != nil { // nil: no columns (a partition deletion, say)
				cols = [2][]sstable.Column{pu.Columns.Regular, pu.Columns.Static}
			}
			for s, cols := range cols {
				remap[s] = remap[s][:0]
				for _, c := range cols {
					j, ok := runCols[s][c.Name]
					if !ok {
						j = -1 // a column dropped since: the table's reads ignore it
					}
					remap[s] = append(remap[s], j)
				}
			}
			if err := w.StartPartition(pu.Key, pu.Deletion); err != nil {
				w.Abort()
				return nil, err
			}
			for dec.NextUnfiltered() {
				uf := dec.Unfiltered()
				m := remap[0]
				if uf.Static {
					m = remap[1]
				}
				uf.Cells = slices.DeleteFunc(uf.Cells, func(c sstable.Cell) bool { return m[c.Column] < 0 })
				for i := range uf.Cells {
					uf.Cells[i].Column = m[uf.Cells[i].Column]
				}
				uf.Complex = slices.DeleteFunc(uf.Complex, func(c sstable.ComplexDeletion) bool { return m[c.Column] < 0 })
				for i := range uf.Complex {
					uf.Complex[i].Column = m[uf.Complex[i].Column]
				}
				if err := w.Add(uf); err != nil {
					w.Abort()
					return nil, err
				}
			}
		}
		if err := dec.Err(); err != nil || !found {
			w.Abort()
			return nil, fmt.Errorf("decode the update ending at %+v again: %v (found %v)", u.e.pos, err, found)
		}
	}
	if err := w.Finish(); err != nil {
		return nil, err
	}
	return sstable.Open(w.DataFile(), sstable.Options{FS: mem})
}

func indexByName(cols []sstable.Column) map[string]int {
	m := make(map[string]int, len(cols))
	for i, c := range cols {
		m[c.Name] = i
	}
	return m
}
