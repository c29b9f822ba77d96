package arrowenc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// addr is the address of a buffer's first byte, also for an empty one.
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// recycle dirties b's whole capacity, frees it and allocates size bytes
// until the pool hands the freed buffer back. A sync.Pool may drop what
// it holds (at a GC, at random under the race detector, or on another
// P), so a miss frees the new buffer and tries again with it; it fails
// the test if the pool never reuses one.
func recycle(t *testing.T, p *poolAllocator, b []byte, size int) []byte {
	t.Helper()
	for range 200 {
		at := addr(b)
		for i := range b[:cap(b)] {
			b[:cap(b)][i] = 0xff
		}
		p.Free(b)
		b = p.Allocate(size)
		if addr(b) == at {
			return b
		}
	}
	t.Fatalf("the pool never handed back a freed buffer for %d bytes", size)
	return nil
}

func TestPoolSizeClasses(t *testing.T) {
	for _, c := range []struct{ size, class int }{
		{0, 6}, {1, 6}, {63, 6}, {64, 6}, {65, 7}, {128, 7}, {129, 8},
		{1000, 10}, {1 << 20, 20}, {1<<20 + 1, 21}, {1 << 26, 26}, {1<<26 + 1, 27},
	} {
		t.Run(fmt.Sprint(c.size), func(t *testing.T) {
			if got := sizeClass(c.size); got != c.class {
				t.Errorf("sizeClass(%d) = %d, want %d", c.size, got, c.class)
			}
		})
	}
	p := newPoolAllocator()
	for _, size := range []int{0, 1, 64, 65, 1000, 4096, 100_000, 1<<20 + 1} {
		b := p.Allocate(size)
		if len(b) != size || cap(b) != 1<<sizeClass(size) {
			t.Errorf("Allocate(%d): len %d cap %d, want len %d cap %d", size, len(b), cap(b), size, 1<<sizeClass(size))
		}
		if a := addr(b); a%64 != 0 {
			t.Errorf("Allocate(%d) at %#x: not 64-byte aligned", size, a)
		}
		p.Free(b)
	}
}

// TestPoolReusesWithinClass: a freed buffer comes back for any size of
// its class, and never for another class.
func TestPoolReusesWithinClass(t *testing.T) {
	p := newPoolAllocator()
	b := recycle(t, p, p.Allocate(1000), 600) // class 10: 513..1024 bytes
	if len(b) != 600 || cap(b) != 1024 {
		t.Fatalf("reused buffer: len %d cap %d, want 600 and 1024", len(b), cap(b))
	}
	at := addr(b)
	p.Free(b)
	for range 100 {
		for _, size := range []int{512, 1025} { // classes 9 and 11
			o := p.Allocate(size)
			if addr(o) == at {
				t.Fatalf("Allocate(%d) returned the class-10 buffer", size)
			}
			defer p.Free(o)
		}
	}
}

// TestPoolZeroes: Allocate and a growing Reallocate return zeroed bytes
// even where the memory held another stream's data.
func TestPoolZeroes(t *testing.T) {
	p := newPoolAllocator()
	b := recycle(t, p, p.Allocate(1000), 1000)
	if i := bytes.IndexFunc(b, func(r rune) bool { return r != 0 }); i >= 0 {
		t.Fatalf("reused Allocate(1000): byte %d is not zero", i)
	}
	if z := recycle(t, p, p.Allocate(10), 0); len(z) != 0 || cap(z) != 64 {
		t.Fatalf("reused Allocate(0): len %d cap %d, want 0 and 64", len(z), cap(z))
	}

	// Grow in place over dirty capacity: what was kept stays, the rest
	// is zero.
	at := addr(b)
	for i := range b[:cap(b)] {
		b[:cap(b)][i] = 0xee
	}
	b = p.Reallocate(10, b)
	b = p.Reallocate(1024, b)
	if addr(b) != at || len(b) != 1024 {
		t.Fatalf("Reallocate within the class moved or resized: %#x len %d", addr(b), len(b))
	}
	if !bytes.Equal(b[:10], bytes.Repeat([]byte{0xee}, 10)) {
		t.Fatalf("Reallocate lost the kept bytes: %x", b[:10])
	}
	if !bytes.Equal(b[10:], make([]byte, 1014)) {
		t.Fatal("Reallocate within the class left old bytes in the grown part")
	}

	// Grow past the class: moved, contents kept, the rest zero.
	g := p.Reallocate(3000, b)
	if addr(g) == at || len(g) != 3000 || cap(g) != 4096 {
		t.Fatalf("Reallocate past the class: %#x len %d cap %d", addr(g), len(g), cap(g))
	}
	if !bytes.Equal(g[:10], bytes.Repeat([]byte{0xee}, 10)) || !bytes.Equal(g[10:], make([]byte, 2990)) {
		t.Fatal("Reallocate past the class did not copy and zero")
	}
	p.Free(g)
}

// TestPoolLeavesOthersToTheGC: buffers larger than the largest class, and
// buffers the pool did not make (their capacity is no size class), are
// never pooled, so they are never handed out again while someone else
// still holds them.
func TestPoolLeavesOthersToTheGC(t *testing.T) {
	p := newPoolAllocator()
	big := p.Allocate(1<<maxClass + 1)
	if len(big) != 1<<maxClass+1 || cap(big) != len(big) {
		t.Fatalf("over-max Allocate: len %d cap %d, want both %d", len(big), cap(big), 1<<maxClass+1)
	}
	p.Free(big)
	p.Free(make([]byte, 1<<(maxClass+1))) // a power of two past the pool: ignored, not an index out of range
	for _, foreign := range [][]byte{make([]byte, 100), make([]byte, 32), make([]byte, 1000, 1500)} {
		p.Free(foreign)
		for range 20 {
			b := p.Allocate(len(foreign))
			if addr(b) == addr(foreign) {
				t.Fatalf("the pool handed out a foreign buffer of cap %d", cap(foreign))
			}
			defer p.Free(b)
		}
	}
	for c := range p.pools {
		for {
			v := p.pools[c].Get()
			if v == nil {
				break
			}
			if b := *v.(*[]byte); addr(b) == addr(big) {
				t.Fatalf("class %d pooled the over-max buffer", c)
			}
		}
	}
}

// TestPoolConcurrent: buffers handed out at the same time never share
// memory. Each goroutine stamps its buffer and checks the stamp is intact
// before freeing it; run it with -race.
func TestPoolConcurrent(t *testing.T) {
	p := newPoolAllocator()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			stamp := byte(g + 1)
			var held [][]byte
			for i := range 2000 {
				b := p.Allocate(1 + rng.IntN(5000))
				if j := bytes.IndexFunc(b, func(r rune) bool { return r != 0 }); j >= 0 {
					errs <- fmt.Errorf("goroutine %d: new buffer not zero at %d", g, j)
					return
				}
				for j := range b {
					b[j] = stamp
				}
				if i%3 == 0 {
					b = p.Reallocate(len(b)+rng.IntN(3000), b)
					for j := range b {
						b[j] = stamp
					}
				}
				held = append(held, b)
				if len(held) > 4 || i == 1999 {
					for _, h := range held {
						if j := bytes.IndexFunc(h, func(r rune) bool { return r != rune(stamp) }); j >= 0 {
							errs <- fmt.Errorf("goroutine %d: buffer of %d bytes written by another at %d (%#x)", g, len(h), j, h[j])
							return
						}
						p.Free(h)
					}
					held = held[:0]
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPoolUnderCheckedAllocator builds record batches batch after batch
// through the pool, as a stream does, under arrow's checked allocator:
// every buffer is released exactly once, nothing is outstanding at the
// end, and each batch holds its own values although its buffers are the
// last batch's memory.
func TestPoolUnderCheckedAllocator(t *testing.T) {
	pool := newPoolAllocator()
	mem := memory.NewCheckedAllocator(pool)
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	var prev []arrow.RecordBatch
	for batch := range 20 {
		rows := 100 + batch*37
		for i := range rows {
			v := batch*10_000 + i
			if i%7 == 0 {
				rb.Field(0).AppendNull()
				rb.Field(1).AppendNull()
				rb.Field(2).AppendNull()
				continue
			}
			rb.Field(0).(*array.Int64Builder).Append(int64(v))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", v))
			lb := rb.Field(2).(*array.ListBuilder)
			lb.Append(true)
			for k := range i % 4 {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(v + k))
			}
		}
		rec := rb.NewRecordBatch()
		checkBatch(t, rec, batch, rows)
		// Keep one batch alive across the next, as a slow sender would:
		// its memory must not be handed to the next batch.
		prev = append(prev, rec)
		if len(prev) == 2 {
			checkBatch(t, prev[0], batch-1, 100+(batch-1)*37)
			prev[0].Release()
			prev = prev[1:]
		}
	}
	for _, r := range prev {
		r.Release()
	}
}

func checkBatch(t *testing.T, rec arrow.RecordBatch, batch, rows int) {
	t.Helper()
	if int(rec.NumRows()) != rows {
		t.Fatalf("batch %d: %d rows, want %d", batch, rec.NumRows(), rows)
	}
	ns := rec.Column(0).(*array.Int64)
	ss := rec.Column(1).(*array.String)
	ls := rec.Column(2).(*array.List)
	vs := ls.ListValues().(*array.Int32)
	for i := range rows {
		v := batch*10_000 + i
		if i%7 == 0 {
			if !ns.IsNull(i) || !ss.IsNull(i) || !ls.IsNull(i) {
				t.Fatalf("batch %d row %d: not null", batch, i)
			}
			continue
		}
		if ns.IsNull(i) || ns.Value(i) != int64(v) || ss.Value(i) != fmt.Sprint("v", v) {
			t.Fatalf("batch %d row %d: %v %q, want %d", batch, i, ns.Value(i), ss.Value(i), v)
		}
		start, end := ls.ValueOffsets(i)
		if int(end-start) != i%4 {
			t.Fatalf("batch %d row %d: list of %d, want %d", batch, i, end-start, i%4)
		}
		for k := start; k < end; k++ {
			if vs.Value(int(k)) != int32(v+int(k-start)) {
				t.Fatalf("batch %d row %d: list value %d", batch, i, vs.Value(int(k)))
			}
		}
	}
}
