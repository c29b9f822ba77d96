package bti

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/compress"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// TestSSTable is one corpus SSTable's index files, its Data.db
// (uncompressed, nil when the codec is not one the test decodes) and the
// partition positions from Cassandra's sstabledump. Exported for the
// external test package.
type TestSSTable struct {
	Name          string // da/table/da-N-bti: its subtest's name
	Table         string
	Partitions    []byte
	Rows          []byte
	Data          []byte
	DumpPositions []int64 // where sstabledump's scanner stood after each partition's header
	StaticColumns bool
}

func (s TestSSTable) partitionsReadable() base.Readable {
	return base.BytesReadable{B: s.Partitions, Path: s.Name + "-Partitions.db"}
}

func (s TestSSTable) rowsReadable() base.Readable {
	return base.BytesReadable{B: s.Rows, Path: s.Name + "-Rows.db"}
}

const corpusDir = "../../testdata/corpus/da/corpus"

// CorpusForTest loads every da SSTable of the committed corpus.
func CorpusForTest(t testing.TB) []TestSSTable {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(corpusDir, "*", "da-*-bti-Partitions.db"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("no da corpus Partitions.db under %s (%v)", corpusDir, err)
	}
	var out []TestSSTable
	for _, p := range parts {
		dir := filepath.Dir(p)
		prefix := strings.TrimSuffix(filepath.Base(p), "-Partitions.db")
		dirName := filepath.Base(dir)
		s := TestSSTable{
			Name:       "da/" + dirName[:strings.LastIndex(dirName, "-")] + "/" + prefix,
			Table:      dirName[:strings.LastIndex(dirName, "-")],
			Partitions: mustRead(t, p),
			Rows:       mustRead(t, filepath.Join(dir, prefix+"-Rows.db")),
		}
		schema := mustRead(t, filepath.Join(dir, "schema.cql"))
		s.StaticColumns = bytes.Contains(schema, []byte(" static"))
		var dump []struct {
			Partition struct {
				Position int64 `json:"position"`
			} `json:"partition"`
		}
		if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "sstabledump", prefix+".json")), &dump); err != nil {
			t.Fatalf("%s: decode sstabledump: %v", s.Name, err)
		}
		for _, d := range dump {
			s.DumpPositions = append(s.DumpPositions, d.Partition.Position)
		}
		data := mustRead(t, filepath.Join(dir, prefix+"-Data.db"))
		if info, err := os.ReadFile(filepath.Join(dir, prefix+"-CompressionInfo.db")); err == nil {
			s.Data, err = decompress(info, data)
			if err != nil {
				t.Logf("%s: Data.db not decoded, key checks skipped: %v", s.Name, err)
			}
		} else {
			s.Data = data
		}
		out = append(out, s)
	}
	return out
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decompress decodes a whole compressed Data.db with package compress, so
// the index positions can be checked against the real partition headers.
func decompress(info, data []byte) ([]byte, error) {
	ci, err := compress.ParseInfo(info, "CompressionInfo.db", true)
	if err != nil {
		return nil, err
	}
	r := compress.NewReader(base.BytesReadable{B: data, Path: "Data.db"}, ci, compress.Options{})
	defer r.Close()
	out := make([]byte, r.DataLength())
	if _, err := r.ReadAt(out, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out, nil
}

// collect iterates the whole index, failing the test on error.
func collect(t testing.TB, idx *PartitionIndex) ([]Payload, [][]byte) {
	t.Helper()
	var pls []Payload
	var prefixes [][]byte
	it := idx.Iter(context.Background())
	for it.Next() {
		pls = append(pls, it.Payload())
		prefixes = append(prefixes, bytes.Clone(it.Prefix()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return pls, prefixes
}

// TestPartitionIndexCorpus: for every da SSTable Cassandra wrote, the
// index lists as many partitions as sstabledump and the footer, in
// strictly increasing Data.db order starting at 0, with stored prefixes in
// strictly increasing byte order; each partition's position is its real
// start (the serialized key there is the one Rows.db or the footer names,
// and the header ends at the dump's position).
func TestPartitionIndexCorpus(t *testing.T) {
	total, viaRows := 0, 0
	cases := corpus.NewCases(t)
	for _, s := range CorpusForTest(t) {
		cases.Run(s.Name, func(t *testing.T) {
			idx, err := OpenPartitionIndex(s.partitionsReadable())
			if err != nil {
				t.Fatal(err)
			}
			pls, prefixes := collect(t, idx)
			if len(pls) != len(s.DumpPositions) || int64(len(pls)) != idx.KeyCount() {
				t.Fatalf("%d entries, dump has %d partitions, footer says %d", len(pls), len(s.DumpPositions), idx.KeyCount())
			}
			rows := OpenRowIndex(s.rowsReadable())
			var keys [][]byte
			for i, pl := range pls {
				if i > 0 && bytes.Compare(prefixes[i-1], prefixes[i]) >= 0 {
					t.Errorf("entry %d: prefix % x not above % x", i, prefixes[i], prefixes[i-1])
				}
				pos := pl.DataPos()
				var rowsKey []byte
				if pl.InRows() {
					viaRows++
					e, err := rows.Entry(context.Background(), pl.RowsPos())
					if err != nil {
						t.Fatal(err)
					}
					pos, rowsKey = e.DataPos, e.Key
				}
				if i == 0 && pos != 0 {
					t.Errorf("first partition at %d, want 0", pos)
				}
				dump := s.DumpPositions[i]
				// The dump stands after the partition header (u16 key
				// length, key, deletion time of 1 or 12 bytes), so the
				// partition starts at least 4 bytes before it and after
				// the previous partition's dumped position.
				if pos > dump-4 || (i > 0 && pos <= s.DumpPositions[i-1]) {
					t.Errorf("entry %d: data position %d does not fit dump positions %v", i, pos, s.DumpPositions[max(i-1, 0):i+1])
				}
				if s.Data == nil {
					continue
				}
				key, hdrEnd := partitionHeader(t, s.Data, pos)
				keys = append(keys, key)
				if rowsKey != nil && !bytes.Equal(rowsKey, key) {
					t.Errorf("entry %d: Rows.db key % x, Data.db key % x", i, rowsKey, key)
				}
				if hdrEnd > dump || (!s.StaticColumns && hdrEnd != dump) {
					t.Errorf("entry %d: header at %d ends at %d, dump position %d", i, pos, hdrEnd, dump)
				}
			}
			if len(keys) > 0 && (!bytes.Equal(keys[0], idx.FirstKey()) || !bytes.Equal(keys[len(keys)-1], idx.LastKey())) {
				t.Errorf("footer keys % x .. % x, Data.db has % x .. % x", idx.FirstKey(), idx.LastKey(), keys[0], keys[len(keys)-1])
			}
			total += len(pls)
		})
	}
	// Not every table has a Rows.db entry; the whole corpus must.
	if cases.All() && viaRows == 0 {
		t.Error("no partition went through Rows.db")
	}
	t.Logf("%d partitions checked, %d through Rows.db", total, viaRows)
}

// partitionHeader reads the key and the end of the partition header
// (key, then a deletion time: 0x80 alone when live, else 12 bytes).
func partitionHeader(t testing.TB, data []byte, pos int64) ([]byte, int64) {
	t.Helper()
	if pos < 0 || pos+2 > int64(len(data)) {
		t.Fatalf("partition position %d outside %d-byte Data.db", pos, len(data))
	}
	n := int64(binary.BigEndian.Uint16(data[pos:]))
	end := pos + 2 + n
	if end >= int64(len(data)) {
		t.Fatalf("key at %d of %d bytes overruns Data.db", pos, n)
	}
	if data[end]&0x80 != 0 {
		return data[pos+2 : end], end + 1
	}
	return data[pos+2 : end], end + 12
}

// TestManyMultiNode: the 520-partition table needs a trie over several
// pages and node kinds; check it is there and fully listed.
func TestManyMultiNode(t *testing.T) {
	for _, s := range CorpusForTest(t) {
		if s.Table != "many" {
			continue
		}
		idx, err := OpenPartitionIndex(s.partitionsReadable())
		if err != nil {
			t.Fatal(err)
		}
		if pls, _ := collect(t, idx); len(pls) != 520 {
			t.Fatalf("%d partitions, want 520", len(pls))
		}
		// Every key starts with 0x40, so the root is a single
		// transition; below it the tokens must fan out over many nodes.
		g := newRegion(s.partitionsReadable(), partitionsComponent, idx.f.firstKeyPos)
		w := newWalk(context.Background(), g, idx.f.root)
		for w.next() {
		}
		if w.err != nil {
			t.Fatal(w.err)
		}
		root, err := readNode(context.Background(), g, idx.f.root)
		if err != nil {
			t.Fatal(err)
		}
		pos, _, err := root.child(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		fan, err := readNode(context.Background(), g, pos)
		if err != nil {
			t.Fatal(err)
		}
		if root.n != 1 || root.transitionByte(0) != 0x40 || fan.n < 16 || w.visits <= 520+2 {
			t.Errorf("root kind %d (%d transitions), next kind %d (%d transitions), %d nodes: want a multi-level trie", root.kind, root.n, fan.kind, fan.n, w.visits)
		}
		t.Logf("root kind %d, token fan-out node kind %d with %d transitions, %d nodes", root.kind, fan.kind, fan.n, w.visits)
		return
	}
	t.Fatal("table many not in corpus")
}

// TestWideRowIndex: each partition of table wide (300 rows of ~100 bytes,
// 4 KiB index blocks) has a Rows.db entry with several blocks at
// increasing offsets, the first at the end of the partition header, each
// within the partition, and separators in increasing byte order.
func TestWideRowIndex(t *testing.T) {
	seen := 0
	for _, s := range CorpusForTest(t) {
		if s.Table != "wide" || len(s.Rows) == 0 {
			continue
		}
		idx, err := OpenPartitionIndex(s.partitionsReadable())
		if err != nil {
			t.Fatal(err)
		}
		pls, _ := collect(t, idx)
		rows := OpenRowIndex(s.rowsReadable())
		for i, pl := range pls {
			if !pl.InRows() {
				t.Fatalf("%s partition %d: payload points into Data.db, want a Rows.db entry", s.Name, i)
			}
			e, err := rows.Entry(context.Background(), pl.RowsPos())
			if err != nil {
				t.Fatal(err)
			}
			blocks, endOff, err := e.Blocks(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) < 2 || len(blocks) != e.BlockCount {
				t.Fatalf("%s partition %d: %d blocks (entry says %d), want several", s.Name, i, len(blocks), e.BlockCount)
			}
			if !e.Deletion.Live {
				t.Errorf("partition %d: deletion %+v, want live", i, e.Deletion)
			}
			// The blocks end at the end-of-partition byte, just before
			// the next partition (or the end of Data.db).
			end := int64(len(s.Data))
			if i+1 < len(pls) {
				next, err := rows.Entry(context.Background(), pls[i+1].RowsPos())
				if err != nil {
					t.Fatal(err)
				}
				end = next.DataPos
			}
			if s.Data != nil || i+1 < len(pls) {
				if got := e.DataPos + endOff + 1; got != end {
					t.Errorf("partition %d: blocks end at %d+%d, next partition starts at %d", i, e.DataPos, endOff, end)
				}
			}
			// The first block starts where rows start: at the dump position.
			if got := e.DataPos + blocks[0].Offset; got != s.DumpPositions[i] {
				t.Errorf("partition %d: first block at %d, dump says rows start at %d", i, got, s.DumpPositions[i])
			}
			opens := 0
			for j, b := range blocks {
				if j > 0 && (b.Offset <= blocks[j-1].Offset || bytes.Compare(b.Separator, blocks[j-1].Separator) <= 0) {
					t.Errorf("partition %d block %d: offset %d sep % x after %d sep % x", i, j, b.Offset, b.Separator, blocks[j-1].Offset, blocks[j-1].Separator)
				}
				if e.DataPos+b.Offset >= end {
					t.Errorf("partition %d block %d: offset %d past the partition end %d", i, j, b.Offset, end)
				}
				// Only the partition with the old range deletion (c in
				// [50, 250) at USING TIMESTAMP 1) has blocks that start
				// inside it; the first block never does.
				if b.OpenDeletion != nil {
					opens++
					if j == 0 || b.OpenDeletion.Live || b.OpenDeletion.MarkedForDeleteAt != 1 {
						t.Errorf("partition %d block %d: open deletion %+v", i, j, *b.OpenDeletion)
					}
				}
			}
			if opens > 0 && opens < 3 || i < 2 && opens > 0 {
				t.Errorf("partition %d: %d blocks open inside a range deletion", i, opens)
			}
			t.Logf("%s partition %d: %d blocks, offsets %d..%d", s.Name, i, len(blocks), blocks[0].Offset, blocks[len(blocks)-1].Offset)
			seen++
		}
	}
	if seen != 3 {
		t.Fatalf("checked %d wide partitions, want 3", seen)
	}
}

func TestDecoratedKeyEscaping(t *testing.T) {
	for _, tc := range []struct {
		key  []byte
		tail string // encoding after 0x40 + 8 token bytes + 0x40
	}{
		{nil, "0038"},
		{[]byte{0x41}, "410038"},
		{[]byte{0x41, 0, 0, 0x42}, "4100feff420038"},
		{[]byte{0x41, 0, 0x42, 0}, "4100ff4200fe38"},
		{[]byte{0}, "00fe38"},
	} {
		t.Run(fmt.Sprintf("key=%x", tc.key), func(t *testing.T) {
			got := DecoratedKey(nil, 0, tc.key)
			if want := "4080000000000000004" + "0" + tc.tail; fmt.Sprintf("%x", got) != want {
				t.Errorf("key % x: got %x, want %s", tc.key, got, want)
			}
		})
	}
	// Token sign flip: the minimum token sorts first.
	if a, b := DecoratedKey(nil, -1<<63, nil), DecoratedKey(nil, 1<<63-1, nil); bytes.Compare(a, b) >= 0 {
		t.Errorf("min token %x does not sort before max token %x", a, b)
	}
}
