package compress

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// infoBytes writes a CompressionInfo.db; maxc < 0 omits the field (3.x).
func infoBytes(class string, chunkLen, maxc int32, dataLen int64, offsets []int64, opts map[string]string) []byte {
	var b []byte
	utf := func(s string) {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	utf(class)
	b = binary.BigEndian.AppendUint32(b, uint32(len(opts)))
	for k, v := range opts {
		utf(k)
		utf(v)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(chunkLen))
	if maxc >= 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(maxc))
	}
	b = binary.BigEndian.AppendUint64(b, uint64(dataLen))
	b = binary.BigEndian.AppendUint32(b, uint32(len(offsets)))
	for _, o := range offsets {
		b = binary.BigEndian.AppendUint64(b, uint64(o))
	}
	return b
}

// compressChunk mimics each Cassandra compressor's output format.
func compressChunk(t *testing.T, class string, src []byte) []byte {
	t.Helper()
	switch class {
	case "LZ4Compressor":
		out := make([]byte, 4+lz4.CompressBlockBound(len(src)))
		binary.LittleEndian.PutUint32(out, uint32(len(src)))
		n, err := lz4.CompressBlock(src, out[4:], nil)
		if err != nil || n == 0 {
			t.Fatalf("lz4: %d, %v", n, err)
		}
		return out[:4+n]
	case "SnappyCompressor":
		return snappy.Encode(nil, src)
	case "DeflateCompressor":
		var buf bytes.Buffer
		w := zlib.NewWriter(&buf)
		w.Write(src)
		w.Close()
		return buf.Bytes()
	case "ZstdCompressor":
		e, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		return e.EncodeAll(src, nil)
	case "NoopCompressor":
		return append([]byte(nil), src...)
	}
	t.Fatalf("no compressor %s", class)
	return nil
}

// buildSSTable lays out data the way CompressedSequentialWriter does,
// including raw storage (and padding of a short final chunk) when a chunk
// does not compress below maxc.
func buildSSTable(t *testing.T, class string, chunkLen, maxc int, data []byte) (dataDB, infoDB []byte) {
	var offsets []int64
	for off := 0; off < len(data); off += chunkLen {
		chunk := data[off:min(off+chunkLen, len(data))]
		c := compressChunk(t, class, chunk)
		if len(c) >= maxc {
			c = append([]byte(nil), chunk...)
			if len(c) < maxc {
				c = append(c, make([]byte, maxc-len(c))...)
			}
		}
		offsets = append(offsets, int64(len(dataDB)))
		dataDB = append(dataDB, c...)
		dataDB = binary.BigEndian.AppendUint32(dataDB, crc32.ChecksumIEEE(c))
	}
	return dataDB, infoBytes(class, int32(chunkLen), int32(maxc), int64(len(data)), offsets, map[string]string{"opt": "v"})
}

// testData mixes compressible text with incompressible random runs.
func testData(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b []byte
	for len(b) < n {
		if rng.IntN(3) == 0 {
			for range 300 {
				b = append(b, byte(rng.Uint32()))
			}
		} else {
			b = fmt.Appendf(b, "row %d of partition %d, compressible text text text;", rng.IntN(100), rng.IntN(10))
		}
	}
	return b[:n]
}

// The corpus holds no Deflate or Zstd data (see
// TestCorpusSlowCodecsFlushedAsLZ4), so every codec, raw chunks and the
// padded raw final chunk are covered by synthetic files built to the
// writer's rules.
func TestCodecsRoundTrip(t *testing.T) {
	const chunkLen = 4096
	for _, class := range []string{"LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor", "NoopCompressor"} {
		for _, maxc := range []int{1<<31 - 1, chunkLen * 7 / 8} {
			for _, n := range []int{1, chunkLen, 3*chunkLen + 1234} {
				data := testData(n)
				if maxc < chunkLen && n == 3*chunkLen+1234 {
					// An incompressible short last chunk gets padded.
					rng := rand.New(rand.NewPCG(3, 4))
					for i := 3 * chunkLen; i < n; i++ {
						data[i] = byte(rng.Uint32())
					}
				}
				dataDB, infoDB := buildSSTable(t, class, chunkLen, maxc, data)
				info, err := ParseInfo(infoDB, "x-CompressionInfo.db", true)
				if err != nil {
					t.Fatalf("%s: %v", class, err)
				}
				r := NewReader(base.BytesReadable{B: dataDB, Path: "x-Data.db"}, info, Options{})
				got := decodeAll(t, r)
				if !bytes.Equal(got, data) {
					t.Fatalf("%s maxc %d n %d: stream differs", class, maxc, n)
				}
				r.Close()
			}
		}
	}
}

// Garbage in a chunk whose CRC is correct must fail decompression cleanly.
func TestCodecsRejectGarbage(t *testing.T) {
	for _, class := range []string{"LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor", "NoopCompressor"} {
		rng := rand.New(rand.NewPCG(5, 6))
		for range 200 {
			c := make([]byte, 2+rng.IntN(200))
			for i := range c {
				c[i] = byte(rng.Uint32())
			}
			if class == "DeflateCompressor" && rng.IntN(2) == 0 {
				c[0], c[1] = 0x78, 0x9c // get past the zlib header
			}
			dataDB := binary.BigEndian.AppendUint32(append([]byte(nil), c...), crc32.ChecksumIEEE(c))
			info, err := ParseInfo(infoBytes(class, 4096, 1<<31-1, 4096, []int64{0}, nil), "i", true)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReader(base.BytesReadable{B: dataDB, Path: "d"}, info, Options{})
			if _, err := r.ReadChunk(0, nil); err == nil {
				t.Fatalf("%s: garbage % x decoded", class, c)
			} else {
				wantCorruption(t, err, "Data.db", 0, "d")
			}
			r.Close()
		}
	}
}

func FuzzReadChunk(f *testing.F) {
	for _, class := range []string{"LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor"} {
		f.Add(uint8(len(class)%4), compressChunk(&testing.T{}, class, testData(600)))
	}
	classes := []string{"LZ4Compressor", "SnappyCompressor", "DeflateCompressor", "ZstdCompressor"}
	f.Fuzz(func(t *testing.T, k uint8, c []byte) {
		if len(c) > 1<<16 {
			return
		}
		info, err := ParseInfo(infoBytes(classes[int(k)%4], 1024, 1<<31-1, 600, []int64{0}, nil), "i", true)
		if err != nil {
			t.Fatal(err)
		}
		dataDB := binary.BigEndian.AppendUint32(append([]byte(nil), c...), crc32.ChecksumIEEE(c))
		r := NewReader(base.BytesReadable{B: dataDB, Path: "d"}, info, Options{})
		defer r.Close()
		if b, err := r.ReadChunk(0, nil); err != nil {
			wantCorruption(t, err, "Data.db", 0, "d")
		} else if len(b) != 600 {
			t.Fatalf("decoded %d bytes", len(b))
		}
		_, _ = r.ReadAt(make([]byte, 10), 590)
	})
}
