package compress

import (
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	corpuspkg "github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

func wantCorruption(t *testing.T, err error, component string, offset int64, file string) {
	t.Helper()
	var ce *base.CorruptionError
	if !errors.Is(err, base.ErrCorruption) || !errors.As(err, &ce) {
		t.Fatalf("want a corruption error, got %v", err)
	}
	if ce.Component != component || ce.File != file || (offset >= 0 && ce.Offset != offset) {
		t.Fatalf("error names %s (%s) at %d, want %s (%s) at %d: %v", ce.File, ce.Component, ce.Offset, file, component, offset, err)
	}
	if !strings.Contains(err.Error(), file) {
		t.Fatalf("message does not name the file: %v", err)
	}
}

// findTable is the corpus SSTable of table in format version.
func findTable(t testing.TB, version, table string) corpusSSTable {
	for _, s := range corpus(t) {
		if s.version == version && s.table == table {
			return s
		}
	}
	t.Fatalf("no %s %s in the corpus", version, table)
	return corpusSSTable{}
}

// Flipping any one byte of a chunk (payload or CRC) must be caught by the
// CRC, reported at that chunk's file offset; without the CRC check it must
// still never panic.
func TestFlippedByteInChunk(t *testing.T) {
	for _, v := range []string{"nb", "oa", "da"} {
		s := findTable(t, v, "comp_lz4_4k")
		orig := readFile(t, s.path("Data.db"))
		info, err := ParseInfo(readFile(t, s.path("CompressionInfo.db")), s.path("CompressionInfo.db"), true)
		if err != nil {
			t.Fatal(err)
		}
		for i, start := range info.ChunkOffsets {
			end := int64(len(orig))
			if i+1 < len(info.ChunkOffsets) {
				end = info.ChunkOffsets[i+1]
			}
			for _, at := range []int64{start, (start + end) / 2, end - 1} { // first, middle, CRC byte
				data := append([]byte(nil), orig...)
				data[at] ^= 0x10
				r := NewReader(base.BytesReadable{B: data, Path: s.path("Data.db")}, info, Options{})
				_, err := r.ReadChunk(i, nil)
				wantCorruption(t, err, "Data.db", start, s.path("Data.db"))
				if !strings.Contains(err.Error(), "CRC32 mismatch") {
					t.Errorf("chunk %d byte %d: %v", i, at, err)
				}
				_, err = r.ReadAt(make([]byte, 10), int64(i)*int64(info.ChunkLength))
				wantCorruption(t, err, "Data.db", start, s.path("Data.db"))

				unchecked := NewReader(base.BytesReadable{B: data, Path: s.path("Data.db")}, info, Options{SkipCRC: true})
				if _, err := unchecked.ReadChunk(i, nil); err != nil {
					wantCorruption(t, err, "Data.db", start, s.path("Data.db"))
				}
			}
		}
	}
}

func TestFlippedByteUncompressed(t *testing.T) {
	for _, v := range []string{"nb", "oa", "da"} {
		s := findTable(t, v, "comp_none")
		data := readFile(t, s.path("Data.db"))
		crc, err := ParseCRC(readFile(t, s.path("CRC.db")), s.path("CRC.db"))
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 1
		r := NewUncompressedReader(base.BytesReadable{B: data, Path: s.path("Data.db")}, crc, Options{})
		_, err = r.ReadAt(make([]byte, 100), 0)
		wantCorruption(t, err, "Data.db", 0, s.path("Data.db"))

		// Truncated Data.db no longer matches CRC.db's chunk count... or
		// fails the last chunk's CRC; either way, corruption.
		short := NewUncompressedReader(base.BytesReadable{B: data[:len(data)-1], Path: s.path("Data.db")}, crc, Options{})
		if _, err := short.ReadChunk(short.NumChunks()-1, nil); !errors.Is(err, base.ErrCorruption) {
			t.Errorf("truncated Data.db: %v", err)
		}
	}
}

func TestTruncatedData(t *testing.T) {
	s := findTable(t, "oa", "comp_lz4_4k")
	data := readFile(t, s.path("Data.db"))
	info, err := ParseInfo(readFile(t, s.path("CompressionInfo.db")), s.path("CompressionInfo.db"), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1, 4, 100, len(data) - int(info.ChunkOffsets[len(info.ChunkOffsets)-2])} {
		r := NewReader(base.BytesReadable{B: data[:len(data)-cut], Path: s.path("Data.db")}, info, Options{})
		_, err := r.ReadChunk(r.NumChunks()-1, nil)
		wantCorruption(t, err, "Data.db", info.ChunkOffsets[r.NumChunks()-1], s.path("Data.db"))
	}
}

// Every proper prefix of every corpus CompressionInfo.db is corrupt (the
// chunk count must match the offsets present), and is reported as such.
func TestTruncatedInfo(t *testing.T) {
	n := 0
	cases := corpuspkg.NewCases(t)
	for _, s := range corpus(t) {
		b, err := os.ReadFile(s.path("CompressionInfo.db"))
		if err != nil {
			continue
		}
		cases.Run(s.name, func(t *testing.T) {
			for l := range len(b) {
				_, err := ParseInfo(b[:l], "x-CompressionInfo.db", true)
				wantCorruption(t, err, "CompressionInfo.db", -1, "x-CompressionInfo.db")
				n++
			}
			// Trailing garbage is corrupt too.
			_, err = ParseInfo(append(b[:len(b):len(b)], 0), "x-CompressionInfo.db", true)
			wantCorruption(t, err, "CompressionInfo.db", -1, "x-CompressionInfo.db")
		})
	}
	if cases.All() && n == 0 {
		t.Fatal("no CompressionInfo.db tested")
	}
}

func TestInfoValidation(t *testing.T) {
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"unknown compressor": {infoBytes("BrotliCompressor", 4096, 1<<31-1, 0, nil, nil), `"BrotliCompressor"`},
		"chunk not pow2":     {infoBytes("LZ4Compressor", 3000, 1<<31-1, 1, []int64{0}, nil), "power of two"},
		"count mismatch":     {infoBytes("LZ4Compressor", 4096, 1<<31-1, 5000, []int64{0}, nil), "chunk count 1"},
		"first offset":       {infoBytes("LZ4Compressor", 4096, 1<<31-1, 10, []int64{7}, nil), "first chunk offset"},
		"offsets decrease":   {infoBytes("LZ4Compressor", 4096, 1<<31-1, 5000, []int64{0, 0}, nil), "no room"},
		"max too big":        {infoBytes("LZ4Compressor", 4096, 8192, 10, []int64{0}, nil), "max compressed length"},
		"negative length":    {infoBytes("LZ4Compressor", 4096, 1<<31-1, -1, nil, nil), "negative data length"},
	} {
		_, err := ParseInfo(tc.b, "f", true)
		if !errors.Is(err, base.ErrCorruption) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "parse CompressionInfo.db") {
			t.Errorf("%s: got %v, want corruption mentioning %q", name, err, tc.want)
		}
	}
	_, err := ParseInfo(infoBytes("BrotliCompressor", 4096, 1<<31-1, 0, nil, nil), "f", true)
	if !errors.Is(err, ErrUnknownCompressor) {
		t.Errorf("unknown compressor: %v", err)
	}
	// Full class names, options and the 3.x layout without maxCompressedLength.
	info, err := ParseInfo(infoBytes("org.apache.cassandra.io.compress.SnappyCompressor", 4096, -1, 4097, []int64{0, 10}, map[string]string{"a": "b"}), "f", false)
	if err != nil || info.Options["a"] != "b" || info.MaxCompressedLength != 1<<31-1 || info.NumChunks() != 2 {
		t.Errorf("3.x layout: %+v, %v", info, err)
	}
}

func TestReadChunkRange(t *testing.T) {
	s := findTable(t, "oa", "comp_lz4")
	r := open(t, s, readFile(t, s.path("Data.db")))
	for _, i := range []int{-1, r.NumChunks()} {
		if _, err := r.ReadChunk(i, nil); err == nil || errors.Is(err, base.ErrCorruption) {
			t.Errorf("chunk %d: want a plain range error, got %v", i, err)
		}
	}
	if _, err := r.ReadAt(make([]byte, 1), -5); err == nil {
		t.Error("negative offset accepted")
	}
	if n, err := r.ReadAt(make([]byte, 1), r.DataLength()); n != 0 || err == nil {
		t.Errorf("read at end: %d, %v", n, err)
	}
}

// The checksum a CRC.db may carry past Data.db's last chunk is the CRC32
// of no bytes.
func TestEmptyCRC(t *testing.T) {
	if got := crc32.ChecksumIEEE(nil); got != emptyCRC {
		t.Fatalf("CRC32 of no bytes is %08x, emptyCRC is %08x", got, emptyCRC)
	}
}
