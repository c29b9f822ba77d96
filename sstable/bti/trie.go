package bti

import "context"

// walk is an in-order cursor over the payload-carrying nodes of one trie,
// the analogue of Cassandra's ValueIterator. A node's payload comes before
// its children's, since a key sorts before its extensions.
type walk struct {
	ctx     context.Context // bounds the waits of its reads
	g       *region
	stack   []frame
	path    []byte // transition bytes from the root to the top of stack
	pending *node  // a payload to emit before resuming the stack
	pendLen int    // len(path) for pending
	cur     node
	curPath []byte
	visits  int64 // nodes read; more than the region's bytes means a cycle-free DAG or worse
	err     error
	started bool
}

type frame struct {
	nd    node
	child int // last child index taken; the next one tried is child+1
}

func newWalk(ctx context.Context, g *region, root int64) *walk {
	w := &walk{ctx: ctx, g: g}
	nd, ok := w.visit(root)
	if !ok {
		return w
	}
	w.stack = append(w.stack, frame{nd: nd, child: -1})
	if nd.flags != 0 {
		w.pending, w.pendLen = &nd, 0
	}
	return w
}

// newWalkFrom starts at the first entry whose key is >= key, preceded by
// the longest stored prefix of key when no entry lies between that prefix
// and key: with tries of unique prefixes (or separators) that entry may
// stand for a key at or above the bound, so callers must see it.
func newWalkFrom(ctx context.Context, g *region, root int64, key []byte) *walk {
	w := &walk{ctx: ctx, g: g}
	nd, ok := w.visit(root)
	if !ok {
		return w
	}
	var pend *node
	pendLen := 0
	for depth := 0; ; depth++ {
		c := endOfKey
		if depth < len(key) {
			c = int(key[depth])
		}
		ci := nd.search(c)
		if ci == 0 || ci == -1 {
			if nd.flags != 0 {
				n := nd
				pend, pendLen = &n, depth
			}
		} else {
			pend = nil
		}
		if ci < 0 {
			w.stack = append(w.stack, frame{nd: nd, child: -ci - 2})
			break
		}
		w.stack = append(w.stack, frame{nd: nd, child: ci})
		pos, _, err := nd.child(g, ci)
		if err != nil {
			w.err = err
			return w
		}
		w.path = append(w.path, byte(c))
		if nd, ok = w.visit(pos); !ok {
			return w
		}
	}
	w.pending, w.pendLen = pend, pendLen
	return w
}

func (w *walk) visit(pos int64) (node, bool) {
	w.visits++
	if w.visits > w.g.limit {
		w.err = w.g.corrupt(pos, "walk trie: more nodes than bytes, the trie is not a tree")
		return node{}, false
	}
	nd, err := readNode(w.ctx, w.g, pos)
	if err != nil {
		w.err = err
		return node{}, false
	}
	return nd, true
}

// next moves to the next payload node; false at the end or on error.
func (w *walk) next() bool {
	if w.err != nil {
		return false
	}
	if w.pending != nil {
		w.cur, w.curPath = *w.pending, w.path[:w.pendLen]
		w.pending = nil
		return true
	}
	for len(w.stack) > 0 {
		top := &w.stack[len(w.stack)-1]
		i := top.child + 1
		if i >= top.nd.n {
			w.stack = w.stack[:len(w.stack)-1]
			if len(w.path) > 0 && len(w.stack) > 0 {
				w.path = w.path[:len(w.path)-1]
			}
			continue
		}
		top.child = i
		pos, ok, err := top.nd.child(w.g, i)
		if err != nil {
			w.err = err
			return false
		}
		if !ok {
			continue
		}
		b := byte(top.nd.transitionByte(i))
		nd, ok := w.visit(pos)
		if !ok {
			return false
		}
		w.stack = append(w.stack, frame{nd: nd, child: -1})
		w.path = append(w.path, b)
		if nd.flags != 0 {
			w.cur, w.curPath = nd, w.path
			return true
		}
	}
	return false
}
