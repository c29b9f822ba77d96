package compress

import (
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// BenchmarkReadChunkLZ4 shows steady-state chunk reads allocate nothing:
// the caller's buffer and the reader's scratch are reused.
func BenchmarkReadChunkLZ4(b *testing.B) {
	s := findTableB(b, "oa", "comp_lz4_4k")
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

func findTableB(b *testing.B, version, table string) corpusSSTable {
	for _, s := range corpus(b) {
		if s.version == version && s.table == table {
			return s
		}
	}
	b.Fatalf("no %s %s", version, table)
	return corpusSSTable{}
}
