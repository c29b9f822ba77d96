package compress

import (
	"context"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// BenchmarkReadChunkLZ4 shows steady-state chunk reads allocate nothing:
// the caller's buffer and the reader's scratch are reused.
func BenchmarkReadChunkLZ4(b *testing.B) {
	s := findTable(b, "oa", "comp_lz4_4k")
	info, err := ParseInfo(readFile(b, s.path("CompressionInfo.db")), s.path("CompressionInfo.db"), true)
	if err != nil {
		b.Fatal(err)
	}
	r := NewReader(base.BytesReadable{B: readFile(b, s.path("Data.db")), Path: s.path("Data.db")}, info, Options{})
	var buf []byte
	for i := range r.NumChunks() { // warm up buffers
		if buf, err = r.ReadChunk(i, buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(info.ChunkLength))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if buf, err = r.ReadChunk(i%(r.NumChunks()-1), buf); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReadChunkNoAllocs(t *testing.T) {
	s := findTable(t, "oa", "comp_lz4_4k")
	data := readFile(t, s.path("Data.db"))
	r := open(t, s, data)
	buf, _ := r.ReadChunk(0, nil)
	p := make([]byte, 100)
	allocs := testing.AllocsPerRun(50, func() {
		var err error
		for i := range r.NumChunks() {
			if buf, err = r.ReadChunk(i, buf); err != nil {
				t.Fatal(err)
			}
			if _, err = r.ReadAt(p, int64(i)*int64(r.ChunkLength())); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass over all chunks", allocs)
	}
}

// BenchmarkReadAtCached reads 100 bytes per op through a chunk cache that
// holds every chunk: a warm point read copies out of the cache's slots
// and allocates nothing.
func BenchmarkReadAtCached(b *testing.B) {
	s := findTable(b, "oa", "comp_lz4_4k")
	info, err := ParseInfo(readFile(b, s.path("CompressionInfo.db")), s.path("CompressionInfo.db"), true)
	if err != nil {
		b.Fatal(err)
	}
	r := NewReader(base.BytesReadable{B: readFile(b, s.path("Data.db")), Path: s.path("Data.db")}, info, Options{Cache: NewChunkCache(64 << 20)})
	defer r.Close()
	p := make([]byte, 100)
	size := info.DataLength - int64(len(p))
	for off := int64(0); off < size; off += int64(info.ChunkLength) { // fill the cache
		if _, err := r.ReadAtCached(context.Background(), p, off); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for i := int64(0); b.Loop(); i++ {
		if _, err := r.ReadAtCached(context.Background(), p, i*997%size); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunkCache measures the cache alone with chunks of three
// slots: "read" copies 100 bytes out of one of 1024 cached chunks (a
// hit), "put" adds a new chunk to a full cache, evicting the least recent
// (a miss's cost beyond decompressing; it allocates the entry and its
// slot list).
func BenchmarkChunkCache(b *testing.B) {
	chunk := make([]byte, 3*slotSize-100)
	b.Run("read", func(b *testing.B) {
		c := NewChunkCache(1024 * 3 * slotSize * 2)
		for i := range 1024 {
			c.put(cacheKey{1, i}, chunk)
		}
		p := make([]byte, 100)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok := c.read(cacheKey{1, i * 7 % 1024}, p, i%(len(chunk)-100)); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("put", func(b *testing.B) {
		c := NewChunkCache(cacheShards * 8 * 3 * slotSize)
		for i := range cacheShards * 16 {
			c.put(cacheKey{1, i}, chunk)
		}
		b.ReportAllocs()
		for i := cacheShards * 16; b.Loop(); i++ {
			c.put(cacheKey{1, i}, chunk)
		}
	})
}
