package bti

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

const (
	pageSize = 4096
	// maxCachedPages bounds a region's memory. A trie walk touches the
	// pages of one root-to-leaf path at a time, and Cassandra packs whole
	// branches into a page, so a handful is enough to avoid re-reading.
	maxCachedPages = 16
)

// region reads bytes of one component within [0, limit) through a small
// cache of 4 KiB pages: trie nodes are tiny and read in many small steps.
// It is safe for concurrent use: a Reader's lookups share its indexes'
// regions. NB: mu guards the cache only; a page is read outside it, so
// two lookups missing the same page may both read it (the first cached
// wins), rather than one waiting on the other's I/O.
type region struct {
	r         base.Readable
	component string
	limit     int64

	mu    sync.Mutex
	pages map[int64][]byte
	order []int64 // FIFO of cached page numbers, for eviction
}

func newRegion(r base.Readable, component string, limit int64) *region {
	return &region{r: r, component: component, limit: limit, pages: map[int64][]byte{}}
}

func (g *region) corrupt(off int64, format string, args ...any) error {
	return base.Corruptf(g.r.Name(), g.component, off, format, args...)
}

// read returns exactly n bytes at off. The slice may alias the cache; the
// cache never rewrites a page, so it stays valid after eviction.
// Its reads wait no longer than ctx (base.ReadAt).
func (g *region) read(ctx context.Context, off int64, n int, what string) ([]byte, error) {
	if off < 0 || n < 0 || off > g.limit || int64(n) > g.limit-off {
		return nil, g.corrupt(off, "read %s: %d bytes at %d run past the end at %d", what, n, off, g.limit)
	}
	if n == 0 {
		return nil, nil
	}
	first, last := off/pageSize, (off+int64(n)-1)/pageSize
	if first == last {
		p, err := g.page(ctx, first)
		if err != nil {
			return nil, err
		}
		return p[off-first*pageSize:][:n], nil
	}
	out := make([]byte, 0, n)
	for pg := first; pg <= last; pg++ {
		p, err := g.page(ctx, pg)
		if err != nil {
			return nil, err
		}
		lo, hi := int64(0), int64(len(p))
		if pg == first {
			lo = off - pg*pageSize
		}
		if pg == last {
			hi = off + int64(n) - pg*pageSize
		}
		out = append(out, p[lo:hi]...)
	}
	return out, nil
}

// page returns page pg, cut at the region's limit.
func (g *region) page(ctx context.Context, pg int64) ([]byte, error) {
	g.mu.Lock()
	p, ok := g.pages[pg]
	g.mu.Unlock()
	if ok {
		return p, nil
	}
	start := pg * pageSize
	size := min(int64(pageSize), g.limit-start)
	p = make([]byte, size)
	n, err := base.ReadAt(ctx, g.r, p, start)
	if n < len(p) {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, g.corrupt(start+int64(n), "read page at %d: file ends early", start)
		}
		return nil, fmt.Errorf("read %s (%s) page at %d: %w", g.r.Name(), g.component, start, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if q, ok := g.pages[pg]; ok {
		return q, nil // another lookup read it meanwhile
	}
	if len(g.order) >= maxCachedPages {
		delete(g.pages, g.order[0])
		g.order = g.order[1:]
	}
	g.pages[pg] = p
	g.order = append(g.order, pg)
	return p, nil
}
