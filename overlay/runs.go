package overlay

import (
	"bytes"
	"encoding/binary"
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
// under the table's header (layers, below). It returns the position of
// the log they reflect. The caller closes the readers. No updates: no runs. An error
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
	w, err := newSealer(o, id, t)
	if err != nil {
		return nil, through, fmt.Errorf("seal the overlay of %s: %w", t.Name, err)
	}
	var layers [][]*partLayer
	for i := 0; i < len(ups); {
		j := i + 1
		for j < len(ups) && ups[j].tok == ups[i].tok && bytes.Equal(ups[j].key, ups[i].key) {
			j++
		}
		parts, err := w.partition(ups[i:j])
		if err != nil {
			return nil, through, fmt.Errorf("seal the overlay of %s: %w", t.Name, err)
		}
		for k, pl := range parts {
			if k == len(layers) {
				layers = append(layers, nil)
			}
			layers[k] = append(layers[k], pl)
		}
		i = j
	}
	var runs []*sstable.Reader
	for k, layer := range layers {
		r, err := w.write(k, layer)
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

// Layers. Several updates of one partition may not simply be written
// as one: they may repeat a row, or overlap range tombstones, which one
// source never may. An update joins the first layer of its partition it
// does not collide with (a row of the same clustering, a static row
// beside a static row, a range tombstone on either side) and the
// partition deletions of a layer's updates fold into the one that
// supersedes the others; else it starts a layer. The k-th layer of every
// partition is the k-th run, and the merge reconciles runs as it
// reconciles SSTables. Writes of new rows, however many per partition,
// take one run; the same row written again takes one more.

// partLayer is one layer of a partition: its key, its deletion, and its
// rows and markers (copied out of the decoder), sorted when written.
type partLayer struct {
	key      []byte
	del      sstable.DeletionTime
	rows     []sstable.Unfiltered
	static   bool
	markers  bool
	clusters map[string]bool
}

// sealer decodes a table's updates and writes its runs.
type sealer struct {
	o      *Overlay
	id     commitlog.TableID
	t      Table
	schema *sstable.Schema // the runs' (every column of the table)
	cols   [2]map[string]int
	dec    *commitlog.Decoder
}

func newSealer(o *Overlay, id commitlog.TableID, t Table) (*sealer, error) {
	schema, err := sstable.NewSchema(t.Header)
	if err != nil {
		return nil, err
	}
	return &sealer{o: o, id: id, t: t, schema: schema, dec: commitlog.NewDecoder(o.schemas.Load()),
		cols: [2]map[string]int{indexByName(schema.Regular), indexByName(schema.Static)}}, nil
}

// partition decodes one partition's updates, in log order, into its
// layers.
func (w *sealer) partition(ups []update) ([]*partLayer, error) {
	var layers []*partLayer
	var remap [2][]int
	for _, u := range ups {
		w.dec.Reset(u.e.mutation, u.e.mv)
		found := false
		for w.dec.NextUpdate() {
			pu := w.dec.Update()
			if pu.Table != w.id {
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
					j, ok := w.cols[s][c.Name]
					if !ok {
						j = -1 // a column dropped since: the table's reads ignore it
					}
					remap[s] = append(remap[s], j)
				}
			}
			in := &partLayer{key: u.key, del: pu.Deletion, clusters: map[string]bool{}}
			for w.dec.NextUnfiltered() {
				uf := copyUnfiltered(w.dec.Unfiltered(), remap)
				switch {
				case uf.Marker:
					in.markers = true
				case uf.Static:
					in.static = true
				default:
					in.clusters[clusteringKey(uf.Clustering)] = true
				}
				in.rows = append(in.rows, uf)
			}
			layers = join(layers, in)
		}
		if err := w.dec.Err(); err != nil || !found {
			return nil, fmt.Errorf("decode the update ending at segment %d offset %d again: %v (found %v)", u.e.pos.SegmentID, u.e.pos.Offset, err, found)
		}
	}
	return layers, nil
}

// join adds an update to the first layer it does not collide with.
func join(layers []*partLayer, in *partLayer) []*partLayer {
	for _, l := range layers {
		if l.markers || in.markers || l.static && in.static {
			continue
		}
		clash := false
		for c := range in.clusters {
			if l.clusters[c] {
				clash = true
				break
			}
		}
		if clash {
			continue
		}
		if supersedes(in.del, l.del) {
			l.del = in.del
		}
		l.static = l.static || in.static
		for c := range in.clusters {
			l.clusters[c] = true
		}
		l.rows = append(l.rows, in.rows...)
		return layers
	}
	return append(layers, in)
}

// supersedes is DeletionTime.supersedes: the later deletion, the later
// local time breaking a tie.
func supersedes(a, b sstable.DeletionTime) bool {
	return a.MarkedForDeleteAt > b.MarkedForDeleteAt || a.MarkedForDeleteAt == b.MarkedForDeleteAt && a.LocalDeletionTime > b.LocalDeletionTime
}

// clusteringKey is a map key of a row's clustering (a null and an empty
// value apart).
func clusteringKey(c [][]byte) string {
	var b []byte
	for _, v := range c {
		if v == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return string(b)
}

// copyUnfiltered copies what the decoder lends (it reuses its slices and
// values) and maps the update's columns to the run's; cells of columns
// dropped since are left out.
func copyUnfiltered(uf *sstable.Unfiltered, remap [2][]int) sstable.Unfiltered {
	out := *uf
	m := remap[0]
	if uf.Static {
		m = remap[1]
	}
	out.Clustering = make([][]byte, len(uf.Clustering))
	for i, v := range uf.Clustering {
		if v != nil {
			out.Clustering[i] = bytes.Clone(v)
		}
	}
	out.Cells = nil
	for _, c := range uf.Cells {
		if m[c.Column] < 0 {
			continue
		}
		c.Column = m[c.Column]
		c.Value = append([]byte{}, c.Value...) // never nil: an empty value is not a null
		if c.Path != nil {
			c.Path = bytes.Clone(c.Path)
		}
		out.Cells = append(out.Cells, c)
	}
	out.Complex = nil
	for _, cd := range uf.Complex {
		if m[cd.Column] < 0 {
			continue
		}
		cd.Column = m[cd.Column]
		out.Complex = append(out.Complex, cd)
	}
	return out
}

// write writes run k: one layer of each of its partitions, in token
// order, each layer's rows in clustering order.
func (w *sealer) write(k int, layer []*partLayer) (*sstable.Reader, error) {
	h := w.t.Header
	h.MinTimestamp, h.MinLocalDeletionTime, h.MinTTL = 0, 0, 0
	mem := writer.NewMemory()
	wr, err := writer.New(mem, writer.Options{Header: h, ID: strconv.Itoa(k + 1)})
	if err != nil {
		return nil, err
	}
	for _, pl := range layer {
		// The static row first, then rows and markers by clustering.
		slices.SortStableFunc(pl.rows, func(a, b sstable.Unfiltered) int {
			switch {
			case a.Static && b.Static:
				return 0
			case a.Static:
				return -1
			case b.Static:
				return 1
			}
			return sstable.CompareUnfiltered(w.schema.Clustering, &a, &b)
		})
		if err := wr.StartPartition(pl.key, pl.del); err != nil {
			wr.Abort()
			return nil, err
		}
		for i := range pl.rows {
			if err := wr.Add(&pl.rows[i]); err != nil {
				wr.Abort()
				return nil, err
			}
		}
	}
	if err := wr.Finish(); err != nil {
		return nil, err
	}
	return sstable.Open(wr.DataFile(), sstable.Options{FS: mem})
}

func indexByName(cols []sstable.Column) map[string]int {
	m := make(map[string]int, len(cols))
	for i, c := range cols {
		m[c.Name] = i
	}
	return m
}
