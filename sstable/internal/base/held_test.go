package base

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReadHeldSurvivesTruncation: a held component, small (heap) or
// large (anonymous memory), keeps its bytes when the file is truncated
// in place after the read. A mapped file faulted (SIGBUS) on the first
// access past the new end (issue #15's finding 5).
func TestReadHeldSurvivesTruncation(t *testing.T) {
	for _, size := range []int{16, heldOnHeap, 1 << 20} {
		path := filepath.Join(t.TempDir(), "t-Filter.db")
		want := bytes.Repeat([]byte{0xa5, 0x5a, 0x3c}, size/3+1)[:size]
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		f, c, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b, held, err := ReadHeld(f, "Filter.db", 1<<30)
		c.Close()
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("%d bytes: the held bytes changed after truncation", size)
		}
		if err := held.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
