package compress

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	// Named so, as corpus is this package's list of corpus SSTables.
	corpuspkg "github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// corpusSSTable is one SSTable of the committed corpus written by real
// Cassandra (nb: 4.1, oa: 5.0 BIG, da: 5.0 BTI).
type corpusSSTable struct {
	name    string // "<mode>/<table>/<prefix>": its subtest's name
	dir     string // table directory
	prefix  string // e.g. "oa-1-big"
	version string // e.g. "oa"
	table   string // e.g. "comp_lz4"
}

func (s corpusSSTable) path(component string) string {
	return filepath.Join(s.dir, s.prefix+"-"+component)
}

func corpus(t testing.TB) []corpusSSTable {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/corpus/*/corpus/*/*-Data.db")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 40 {
		t.Fatalf("found only %d Data.db files in the corpus", len(paths))
	}
	var out []corpusSSTable
	for _, p := range paths {
		dir := filepath.Dir(p)
		prefix := strings.TrimSuffix(filepath.Base(p), "-Data.db")
		tdir := filepath.Base(dir)
		out = append(out, corpusSSTable{
			name: corpuspkg.SSTableCase(p), dir: dir, prefix: prefix, version: prefix[:2],
			table: tdir[:strings.LastIndexByte(tdir, '-')],
		})
	}
	return out
}

// hasMaxCompressedLength is metadata.Version's MaxCompressedLength flag
// for the version letters of a corpus file: BIG from na on and BTI store
// the field, 3.x (m*) lacks it. This package's tests cannot import
// sstable, which imports it; TestMaxCompressedLengthAgrees checks the two
// agree for every version sstable reads.
func hasMaxCompressedLength(version string) bool { return version[0] != 'm' }

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// chunkReader is the shape both readers share.
type chunkReader interface {
	io.ReaderAt
	ReadChunk(i int, dst []byte) ([]byte, error)
	DataLength() int64
	ChunkLength() int
	NumChunks() int
}

// open returns a verifying reader for s, compressed or not.
func open(t testing.TB, s corpusSSTable, data []byte) chunkReader {
	t.Helper()
	r := base.BytesReadable{B: data, Path: s.path("Data.db")}
	if b, err := os.ReadFile(s.path("CompressionInfo.db")); err == nil {
		info, err := ParseInfo(b, s.path("CompressionInfo.db"), hasMaxCompressedLength(s.version))
		if err != nil {
			t.Fatal(err)
		}
		cr := NewReader(r, info, Options{})
		t.Cleanup(func() { cr.Close() })
		return cr
	}
	crc, err := ParseCRC(readFile(t, s.path("CRC.db")), s.path("CRC.db"))
	if err != nil {
		t.Fatal(err)
	}
	return NewUncompressedReader(r, crc, Options{})
}

// decodeAll reads every chunk with CRC verification, checks the lengths,
// and checks that ReadAt in odd-sized pieces yields the same stream.
func decodeAll(t *testing.T, r chunkReader) []byte {
	t.Helper()
	var all, buf []byte
	for i := range r.NumChunks() {
		var err error
		buf, err = r.ReadChunk(i, buf)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if i < r.NumChunks()-1 && len(buf) != r.ChunkLength() {
			t.Fatalf("chunk %d: %d bytes, want %d", i, len(buf), r.ChunkLength())
		}
		all = append(all, buf...)
	}
	if int64(len(all)) != r.DataLength() {
		t.Fatalf("chunks hold %d bytes, data length is %d", len(all), r.DataLength())
	}
	viaReadAt := make([]byte, 0, len(all))
	p := make([]byte, 1000) // not a divisor of any chunk size: reads straddle chunks
	for off := int64(0); ; {
		n, err := r.ReadAt(p, off)
		viaReadAt = append(viaReadAt, p[:n]...)
		off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("ReadAt %d: %v", off, err)
		}
	}
	if !bytes.Equal(all, viaReadAt) {
		t.Fatal("ReadAt stream differs from ReadChunk stream")
	}
	return all
}

type dumpPartition struct {
	Partition struct {
		Key          []string        `json:"key"`
		Position     int64           `json:"position"`
		DeletionInfo json.RawMessage `json:"deletion_info"`
	} `json:"partition"`
	Rows []struct {
		Type string `json:"type"`
	} `json:"rows"`
}

// serializedKey encodes a dumped partition key as Data.db stores it, for
// the corpus schemas: clustered has a (text, int) composite key, many a
// bigint, every other table a single int.
func serializedKey(t *testing.T, table string, key []string) []byte {
	t.Helper()
	atoi := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: key %q: %v", table, key, err)
		}
		return v
	}
	switch table {
	case "clustered":
		return marshal.AppendComposite(nil, []byte(key[0]), binary.BigEndian.AppendUint32(nil, uint32(atoi(key[1]))))
	case "many":
		return binary.BigEndian.AppendUint64(nil, uint64(atoi(key[0])))
	default:
		if len(key) != 1 {
			t.Fatalf("%s: want a single int key, got %q", table, key)
		}
		return binary.BigEndian.AppendUint32(nil, uint32(atoi(key[0])))
	}
}

// checkAgainstDump cross-checks the decoded stream with Cassandra's own
// sstabledump. Its partition "position" is where the scanner stands after
// the partition header (key, deletion time) and any static row — not the
// partition start — so for each partition we look back for the header:
// u16 key length, the key bytes, right after the previous partition's
// end-of-partition flag (0x01), and, absent a static row, followed by a
// deletion time that ends exactly at the dumped position (at or before
// it when the table has static columns).
func checkAgainstDump(t *testing.T, s corpusSSTable, data []byte) {
	t.Helper()
	var dump []dumpPartition
	if err := json.Unmarshal(readFile(t, filepath.Join(s.dir, "sstabledump", s.prefix+".json")), &dump); err != nil {
		t.Fatal(err)
	}
	if len(dump) == 0 {
		t.Fatal("empty dump")
	}
	if data[len(data)-1] != 0x01 {
		t.Errorf("stream ends with %#x, want the end-of-partition flag 0x01", data[len(data)-1])
	}
	staticTable := bytes.Contains(readFile(t, filepath.Join(s.dir, "schema.cql")), []byte(" static,"))
	lo := int64(0)
	for pi, p := range dump {
		pos := p.Partition.Position
		key := serializedKey(t, s.table, p.Partition.Key)
		if pos < lo || pos > int64(len(data)) {
			t.Fatalf("partition %d %q: position %d outside [%d,%d]", pi, p.Partition.Key, pos, lo, len(data))
		}
		start := int64(-1)
		for c := pos - 2 - int64(len(key)) - 1; c >= lo; c-- {
			if (c == 0 || data[c-1] == 0x01) &&
				binary.BigEndian.Uint16(data[c:]) == uint16(len(key)) &&
				bytes.Equal(data[c+2:c+2+int64(len(key))], key) {
				start = c
				break
			}
		}
		if start < 0 || (pi == 0 && start != 0) {
			t.Fatalf("partition %d %q: no header with key % x before position %d (found %d)", pi, p.Partition.Key, key, pos, start)
		}
		klen := int64(binary.BigEndian.Uint16(data[start:]))
		if klen == 0 || start+2+klen > int64(len(data)) {
			t.Fatalf("partition %d: implausible key length %d at %d", pi, klen, start)
		}
		if len(key) == 4 && s.table != "clustered" {
			if got := int32(binary.BigEndian.Uint32(data[start+2:])); strconv.Itoa(int(got)) != p.Partition.Key[0] {
				t.Fatalf("partition %d: key decodes to %d, dump says %s", pi, got, p.Partition.Key[0])
			}
		}
		hdr := start + 2 + klen
		delLen := int64(12) // 4.x: i32 localDeletionTime + i64 markedForDeleteAt
		if s.version != "nb" && data[hdr]&0x80 != 0 {
			delLen = 1 // 5.0: a lone 0x80 byte means "live"
		}
		live := delLen == 1 || bytes.Equal(data[hdr:hdr+12], []byte{0x7f, 0xff, 0xff, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0})
		if live != (len(p.Partition.DeletionInfo) == 0) {
			t.Errorf("partition %d: header deletion % x disagrees with dump deletion_info %s", pi, data[hdr:hdr+delLen], p.Partition.DeletionInfo)
		}
		// A printed static row lies between header and position; a table
		// with static columns may also hold one the dump does not print
		// (empty or deleted), so there the header may end early.
		end := hdr + delLen
		hasStatic := len(p.Rows) > 0 && p.Rows[0].Type == "static_block"
		if (hasStatic && end >= pos) || (!hasStatic && staticTable && end > pos) || (!hasStatic && !staticTable && end != pos) {
			t.Fatalf("partition %d %q: header ends at %d, dump position %d (static row %v, static columns %v)", pi, p.Partition.Key, end, pos, hasStatic, staticTable)
		}
		lo = pos
	}
}

func TestCorpus(t *testing.T) {
	seen := map[string]int{}
	cases := corpuspkg.NewCases(t)
	for _, s := range corpus(t) {
		cases.Run(s.name, func(t *testing.T) {
			data := readFile(t, s.path("Data.db"))
			r := open(t, s, data)
			if cr, ok := r.(*Reader); ok {
				seen[s.version+" "+cr.info.Compressor]++
			} else {
				seen[s.version+" uncompressed"]++
			}
			stream := decodeAll(t, r)
			checkAgainstDump(t, s, stream)
		})
	}
	t.Logf("codecs seen: %v", seen)
	// Every version must have exercised LZ4, Snappy and uncompressed data:
	// a floor on the whole corpus, which holds only when every SSTable ran.
	if !cases.All() {
		return
	}
	for _, v := range []string{"nb", "oa", "da"} {
		for _, c := range []string{"LZ4Compressor", "SnappyCompressor", "uncompressed"} {
			if seen[v+" "+c] == 0 {
				t.Errorf("%s: no SSTable with %s in the corpus", v, c)
			}
		}
	}
}

// The corpus is written with flush_compression: table, so comp_deflate and
// comp_zstd hold real Deflate and Zstd chunks (Cassandra's default, fast,
// would flush them with LZ4). Pin it: these are the real-file coverage of
// those codecs, which TestCorpusDecodes reads through.
func TestCorpusHasDeflateAndZstd(t *testing.T) {
	want := map[string]string{"comp_deflate": "DeflateCompressor", "comp_zstd": "ZstdCompressor"}
	n := 0
	for _, s := range corpus(t) {
		class, ok := want[s.table]
		if !ok {
			continue
		}
		info, err := ParseInfo(readFile(t, s.path("CompressionInfo.db")), s.path("CompressionInfo.db"), true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(info.Compressor, class) {
			t.Errorf("%s: written with %s, want %s", s.path(""), info.Compressor, class)
		}
		n++
	}
	if n != 6 {
		t.Errorf("found %d Deflate/Zstd SSTables, want 2 per mode", n)
	}
}

func TestCorpusInfoFields(t *testing.T) {
	for _, s := range corpus(t) {
		if s.table != "comp_lz4_4k" {
			continue
		}
		info, err := ParseInfo(readFile(t, s.path("CompressionInfo.db")), s.path("CompressionInfo.db"), true)
		if err != nil {
			t.Fatal(err)
		}
		if info.ChunkLength != 4096 || info.NumChunks() < 2 || info.MaxCompressedLength != 1<<31-1 {
			t.Errorf("%s: chunk length %d, %d chunks, max compressed %d", s.prefix, info.ChunkLength, info.NumChunks(), info.MaxCompressedLength)
		}
	}
}
