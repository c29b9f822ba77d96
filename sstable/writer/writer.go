package writer

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/token"
)

// Version and Format are what the writer writes: Cassandra 5.0's BIG.
const (
	Version = "oa"
	Format  = "big"
)

// Murmur3Partitioner is the partitioner whose token order the writer
// keeps; the only one it writes.
const Murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// Options configure a Writer. Header is required; the zero value of every
// other field is Cassandra's default.
type Options struct {
	// Header is the serialization header: the key, clustering and column
	// types, and the minima every timestamp, deletion time and TTL of
	// Data.db is written as a delta from. Cells name columns by their
	// index in the order sstable.NewSchema gives them.
	Header metadata.SerializationHeader
	// ID is the SSTable's generation in its file names; "1" when empty.
	ID string
	// BloomFilterFPChance is the table's bloom_filter_fp_chance; 0.01
	// when zero.
	BloomFilterFPChance float64
	// MinIndexInterval is the table's min_index_interval: every how many
	// partitions Summary.db samples Index.db; 128 when zero.
	MinIndexInterval int
	// CommitLogIntervals are the commit log ranges the SSTable covers, as
	// a flush records them; the lower and upper bounds are their extent.
	CommitLogIntervals []metadata.CommitLogInterval
	// OriginatingHostID is the host id of the node whose commit log the
	// intervals are from; nil when none.
	OriginatingHostID *metadata.UUID
	// RepairedAt is the repair time in ms since the epoch; 0 unrepaired.
	RepairedAt int64
}

// Writer writes one SSTable: StartPartition, then the partition's
// unfiltereds with Add (its static row first, if any), for each partition
// in token order; then Finish. Data.db streams to Files as it is encoded;
// the other components are written by Finish. After an error the Writer
// refuses everything but Abort.
type Writer struct {
	files  Files
	opts   Options
	desc   metadata.Descriptor
	schema *sstable.Schema
	enc    encoder
	stats  collector

	data    io.WriteCloser
	buf     *bufio.Writer
	crc     chunkCRC
	pos     int64 // bytes of Data.db written
	scratch []byte
	index   []byte // Index.db
	summary summaryBuilder
	hashes  [][2]uint64 // murmur3 of every key, for Filter.db
	// keyHashes are every key's hash2_64, for the cardinality estimate.
	keyHashes []uint64
	firstKey  []byte
	lastKey   []byte
	lastTok   token.Token

	// The open partition.
	open       bool
	partStart  int64
	partDel    sstable.DeletionTime
	rows       rowIndex
	promoted   []byte // scratch for a promoted index
	staticDone bool   // the static row is written (or the header has none)
	prevStart  int64
	last       sstable.Unfiltered // the previous unfiltered, for order checks
	hasLast    bool
	openDel    bool // a range tombstone is open
	partCells  int64
	keep       []byte

	err error
}

// New starts an SSTable in files.
func New(files Files, opts Options) (*Writer, error) {
	if opts.ID == "" {
		opts.ID = "1"
	}
	if opts.BloomFilterFPChance == 0 {
		opts.BloomFilterFPChance = 0.01
	}
	if opts.MinIndexInterval == 0 {
		opts.MinIndexInterval = 128
	}
	if opts.BloomFilterFPChance < 0 || opts.BloomFilterFPChance > 1 || opts.MinIndexInterval < 0 {
		return nil, fmt.Errorf("start sstable: %w", inputf("bloom filter chance %v, min index interval %d", opts.BloomFilterFPChance, opts.MinIndexInterval))
	}
	schema, err := sstable.NewSchema(opts.Header)
	if err != nil {
		return nil, fmt.Errorf("start sstable: %w", err)
	}
	desc := metadata.Descriptor{Version: Version, ID: opts.ID, Format: Format, Component: "Data.db"}
	w := &Writer{files: files, opts: opts, desc: desc, schema: schema}
	w.enc = encoder{schema: schema, header: &w.opts.Header}
	w.stats.init(schema)
	w.summary.interval = opts.MinIndexInterval
	if w.data, err = files.Create(w.name("Data.db")); err != nil {
		return nil, fmt.Errorf("start sstable: %w", err)
	}
	w.buf = bufio.NewWriterSize(w.data, 64<<10)
	return w, nil
}

// name is a component's file name.
func (w *Writer) name(component string) string { return w.desc.Prefix() + "-" + component }

// DataFile is the name of Data.db, what sstable.Open takes (in a
// directory, or any path for a Memory).
func (w *Writer) DataFile() string { return w.name("Data.db") }

// Schema is the header parsed: the order of its columns is what
// Cell.Column indexes.
func (w *Writer) Schema() *sstable.Schema { return w.schema }

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// write appends b to Data.db.
func (w *Writer) write(b []byte) error {
	if _, err := w.buf.Write(b); err != nil {
		return w.fail(fmt.Errorf("write %s: %w", w.DataFile(), err))
	}
	w.crc.write(b)
	w.pos += int64(len(b))
	return nil
}

// StartPartition ends the previous partition, if any, and starts the
// partition of key (serialized, as in Index.db) with its partition-level
// deletion (sstable.LiveDeletion for none). Partitions must come in token
// order (token.CompareDecorated), each key once.
func (w *Writer) StartPartition(key []byte, del sstable.DeletionTime) error {
	if w.err != nil {
		return w.err
	}
	if err := w.endPartition(); err != nil {
		return err
	}
	if len(key) == 0 || len(key) > 0xffff {
		return w.fail(fmt.Errorf("start partition: %w", inputf("key of %d bytes", len(key))))
	}
	tok := token.Of(key)
	if w.lastKey != nil && token.CompareDecorated(w.lastTok, w.lastKey, tok, key) >= 0 {
		return w.fail(fmt.Errorf("start partition %x: %w", key, inputf("not after the previous partition %x in token order", w.lastKey)))
	}
	b := append(w.scratch[:0], byte(len(key)>>8), byte(len(key)))
	b, err := appendAbsoluteDeletion(append(b, key...), del)
	if err != nil {
		return w.fail(fmt.Errorf("start partition %x: %w", key, err))
	}
	w.scratch = b
	if w.firstKey == nil {
		w.firstKey = bytes.Clone(key)
	}
	w.lastKey, w.lastTok = append(w.lastKey[:0], key...), tok
	w.partStart, w.partDel = w.pos, del
	w.rows.reset()
	h1, h2 := murmur3Sum128(key)
	w.hashes = append(w.hashes, [2]uint64{h1, h2})
	w.keyHashes = append(w.keyHashes, murmurHash2_64(key))
	w.stats.partition(key, del)
	if err := w.write(b); err != nil {
		return err
	}
	w.open, w.hasLast, w.openDel, w.partCells = true, false, false, 0
	w.staticDone = len(w.schema.Static) == 0
	w.prevStart = w.partStart
	return nil
}

// Add writes the next unfiltered of the open partition: the static row
// first (Static set; only when the header has static columns), then rows
// and range tombstone markers in clustering order. Add does not keep u.
func (w *Writer) Add(u *sstable.Unfiltered) error {
	if w.err != nil {
		return w.err
	}
	if !w.open {
		return w.fail(fmt.Errorf("add unfiltered: %w", inputf("no partition started")))
	}
	if u.Static {
		if w.staticDone || u.Marker {
			return w.fail(fmt.Errorf("add static row to partition %x: %w", w.lastKey, inputf("static row not first, or the header has no static columns")))
		}
		return w.unfiltered(u, 0)
	}
	if err := w.writeStatic(); err != nil {
		return err
	}
	if err := w.checkOrder(u); err != nil {
		return w.fail(fmt.Errorf("add unfiltered to partition %x: %w", w.lastKey, err))
	}
	return w.unfiltered(u, w.pos-w.prevStart)
}

// emptyStatic is the static row Cassandra writes for a partition without
// one when the header has static columns.
var emptyStatic = sstable.Unfiltered{Static: true, Liveness: sstable.LivenessInfo{Timestamp: sstable.NoTimestamp}, Deletion: sstable.LiveDeletion}

func (w *Writer) writeStatic() error {
	if w.staticDone {
		return nil
	}
	return w.unfiltered(&emptyStatic, 0)
}

func (w *Writer) unfiltered(u *sstable.Unfiltered, prevSize int64) error {
	start := w.pos
	var err error
	if u.Marker {
		w.scratch, err = w.enc.marker(w.scratch[:0], u, prevSize)
	} else {
		w.scratch, err = w.enc.row(w.scratch[:0], u, prevSize)
	}
	if err != nil {
		return w.fail(fmt.Errorf("add unfiltered to partition %x: %w", w.lastKey, err))
	}
	if err := w.write(w.scratch); err != nil {
		return err
	}
	w.stats.unfiltered(u, w.enc.present)
	if u.Static {
		w.staticDone = true
		return nil
	}
	w.rows.start(&w.enc, u, start-w.partStart)
	w.prevStart = start
	w.hasLast = true
	w.last.Marker, w.last.Kind = u.Marker, u.Kind
	w.last.Clustering = w.last.Clustering[:0]
	// NB: the values are kept by copy, in one reused buffer.
	w.keep = w.keep[:0]
	for _, v := range u.Clustering {
		w.keep = append(w.keep, v...)
	}
	off := 0
	for _, v := range u.Clustering {
		if v == nil {
			w.last.Clustering = append(w.last.Clustering, nil)
			continue
		}
		w.last.Clustering = append(w.last.Clustering, w.keep[off:off+len(v):off+len(v)])
		off += len(v)
	}
	if u.Marker {
		w.openDel = u.Kind.IsStart() || u.Kind.IsBoundary()
	}
	w.rows.end(&w.enc, &w.last, w.pos-w.partStart, false)
	return nil
}

// checkOrder refuses an unfiltered not strictly after the previous one,
// and markers that do not alternate open, close.
func (w *Writer) checkOrder(u *sstable.Unfiltered) error {
	if u.Marker {
		opens := u.Kind.IsStart()
		closes := !u.Kind.IsStart() && !u.Kind.IsBoundary()
		switch {
		case u.Kind.IsBoundary() && !w.openDel:
			return inputf("range tombstone boundary with no open range")
		case opens && w.openDel:
			return inputf("range tombstone opened inside an open one")
		case closes && !w.openDel:
			return inputf("range tombstone closed with none open")
		}
	}
	if !w.hasLast {
		return nil
	}
	if sstable.CompareUnfiltered(w.schema.Clustering, &w.last, u) >= 0 {
		return inputf("unfiltered not after the previous one in clustering order")
	}
	return nil
}

// endPartition writes the open partition's end.
func (w *Writer) endPartition() error {
	if !w.open {
		return nil
	}
	if err := w.writeStatic(); err != nil {
		return err
	}
	if w.openDel {
		return w.fail(fmt.Errorf("end partition %x: %w", w.lastKey, inputf("a range tombstone is left open")))
	}
	if err := w.write([]byte{sstable.FlagEndOfPartition}); err != nil {
		return err
	}
	// NB: the last block's width counts the end-of-partition byte.
	w.rows.end(&w.enc, &w.last, w.pos-w.partStart, true)
	w.index = w.summary.add(w.index, w.lastKey)
	w.index, w.promoted = w.rows.appendEntry(w.index, w.lastKey, w.partStart, w.partDel, w.promoted)
	w.open = false
	w.stats.endPartition(w.pos - w.partStart)
	return nil
}

// Finish ends the last partition and writes the other components. The
// SSTable must hold at least one partition (Cassandra writes no empty
// SSTable).
func (w *Writer) Finish() error {
	if w.err != nil {
		return w.err
	}
	if err := w.endPartition(); err != nil {
		return err
	}
	if w.firstKey == nil {
		return w.fail(fmt.Errorf("finish sstable: %w", inputf("no partition")))
	}
	if err := w.buf.Flush(); err != nil {
		return w.fail(fmt.Errorf("write %s: %w", w.DataFile(), err))
	}
	err := w.data.Close()
	w.data = nil
	if err != nil {
		return w.fail(fmt.Errorf("close %s: %w", w.DataFile(), err))
	}
	components := []struct {
		name string
		b    []byte
	}{
		{"Index.db", w.index},
		{"Summary.db", w.summary.finish(w.firstKey, w.lastKey)},
		{"Filter.db", bloomFilter(w.hashes, w.opts.BloomFilterFPChance)},
		{"Statistics.db", w.statistics()},
		{"CRC.db", w.crc.file()},
		{"Digest.crc32", []byte(fmt.Sprint(w.crc.full))},
	}
	var toc []byte
	for _, c := range components {
		if err := w.writeFile(c.name, c.b); err != nil {
			return err
		}
	}
	for _, c := range tocComponents {
		toc = append(append(toc, c...), '\n')
	}
	return w.writeFile("TOC.txt", toc)
}

// tocComponents are TOC.txt's lines, sorted as Cassandra writes them.
var tocComponents = []string{"CRC.db", "Data.db", "Digest.crc32", "Filter.db", "Index.db", "Statistics.db", "Summary.db", "TOC.txt"}

func (w *Writer) writeFile(component string, b []byte) error {
	f, err := w.files.Create(w.name(component))
	if err != nil {
		return w.fail(fmt.Errorf("write %s: %w", component, err))
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return w.fail(fmt.Errorf("write %s: %w", w.name(component), err))
	}
	if err := f.Close(); err != nil {
		return w.fail(fmt.Errorf("close %s: %w", w.name(component), err))
	}
	return nil
}

// Abort closes Data.db, if open; the caller removes what was written.
func (w *Writer) Abort() error {
	w.fail(fmt.Errorf("sstable writer aborted"))
	if w.data == nil {
		return nil
	}
	err := w.data.Close()
	w.data = nil
	return err
}

// chunkCRC computes CRC.db and Digest.crc32 as ChecksummedSequentialWriter
// does for an uncompressed Data.db: a CRC32 per 64 KiB chunk, and one of
// the whole file.
type chunkCRC struct {
	crcs  []uint32
	cur   uint32
	inCur int
	full  uint32
}

const crcChunk = 64 << 10

func (c *chunkCRC) write(b []byte) {
	c.full = crc32.Update(c.full, crc32.IEEETable, b)
	for len(b) > 0 {
		n := min(len(b), crcChunk-c.inCur)
		c.cur = crc32.Update(c.cur, crc32.IEEETable, b[:n])
		c.inCur += n
		b = b[n:]
		if c.inCur == crcChunk {
			c.crcs = append(c.crcs, c.cur)
			c.cur, c.inCur = 0, 0
		}
	}
}

func (c *chunkCRC) file() []byte {
	b := []byte{0, 1, 0, 0} // int32 chunk size 65536
	crcs := c.crcs
	if c.inCur > 0 {
		crcs = append(crcs, c.cur)
	}
	for _, v := range crcs {
		b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	return b
}
