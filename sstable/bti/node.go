package bti

import "context"

import "encoding/binary"

// Node types: the high 4 bits of a node's first byte (TrieNode.Types).
const (
	payloadOnly   = 0
	singleNoPay4  = 1 // 4-bit pointer in the header's low bits, no payload
	single8       = 2
	singleNoPay12 = 3 // 12-bit pointer over header low bits + next byte
	single16      = 4
	sparse8       = 5
	sparse12      = 6
	sparse16      = 7
	sparse24      = 8
	sparse40      = 9
	dense12       = 10
	dense16       = 11
	dense24       = 12
	dense32       = 13
	dense40       = 14
	denseLong     = 15
	endOfKey      = -1 // search byte meaning "the key has no more bytes"
	pointerBits12 = -12
)

// pointerBytes gives each type's pointer width in bytes; pointerBits12
// marks packed 12-bit pointers, and the no-payload singles handle theirs
// specially.
var pointerBytes = [16]int{
	payloadOnly: 0, singleNoPay4: 0, single8: 1, singleNoPay12: 0, single16: 2,
	sparse8: 1, sparse12: pointerBits12, sparse16: 2, sparse24: 3, sparse40: 5,
	dense12: pointerBits12, dense16: 2, dense24: 3, dense32: 4, dense40: 5, denseLong: 8,
}

// node is one decoded trie node. b holds its bytes (excluding payload).
type node struct {
	pos   int64
	kind  int
	b     []byte
	flags int   // payload bits; 0 when there is no payload
	n     int   // transition range: child indexes are 0..n-1
	ppos  int64 // where the payload starts
}

// readNode decodes the node at pos. A region's nodes must all lie below
// its limit; anything else is corruption.
func readNode(ctx context.Context, g *region, pos int64) (node, error) {
	h, err := g.read(ctx, pos, 1, "trie node header")
	if err != nil {
		return node{}, err
	}
	nd := node{pos: pos, kind: int(h[0] >> 4), flags: int(h[0] & 0x0f)}
	var size int
	switch nd.kind {
	case payloadOnly:
		size = 1
	case singleNoPay4:
		size, nd.n, nd.flags = 2, 1, 0
	case single8:
		size, nd.n = 3, 1
	case singleNoPay12:
		size, nd.n, nd.flags = 3, 1, 0
	case single16:
		size, nd.n = 4, 1
	case sparse8, sparse12, sparse16, sparse24, sparse40:
		c, err := g.read(ctx, pos, 2, "sparse trie node")
		if err != nil {
			return node{}, err
		}
		nd.n = int(c[1])
		if pb := pointerBytes[nd.kind]; pb == pointerBits12 {
			size = 2 + (5*nd.n+1)/2
		} else {
			size = 2 + nd.n*(1+pb)
		}
	default: // dense
		c, err := g.read(ctx, pos, 3, "dense trie node")
		if err != nil {
			return node{}, err
		}
		nd.n = int(c[2]) + 1
		if int(c[1])+nd.n > 256 {
			return node{}, g.corrupt(pos, "read dense trie node: transitions %#x+%d pass 0xff", c[1], nd.n)
		}
		if pb := pointerBytes[nd.kind]; pb == pointerBits12 {
			size = 3 + (3*nd.n+1)/2
		} else {
			size = 3 + nd.n*pb
		}
	}
	if nd.b, err = g.read(ctx, pos, size, "trie node"); err != nil {
		return node{}, err
	}
	nd.ppos = pos + int64(size)
	if nd.kind >= sparse8 && nd.kind <= sparse40 {
		// Binary search and in-order walks both need strictly increasing
		// transition bytes; a file without them is damaged.
		for i := 1; i < nd.n; i++ {
			if nd.b[2+i] <= nd.b[1+i] {
				return node{}, g.corrupt(pos, "read sparse trie node: transition bytes not increasing at child %d", i)
			}
		}
	}
	return nd, nil
}

// transitionByte is the byte labelling child i (0 <= i < n).
func (nd *node) transitionByte(i int) int {
	switch {
	case nd.kind == singleNoPay12:
		return int(nd.b[2])
	case nd.kind <= single16:
		return int(nd.b[1])
	case nd.kind <= sparse40:
		return int(nd.b[2+i])
	default:
		return int(nd.b[1]) + i
	}
}

// delta is the stored distance back to child i; 0 is a dense node's hole.
func (nd *node) delta(i int) uint64 {
	b := nd.b
	switch nd.kind {
	case singleNoPay4:
		return uint64(b[0] & 0x0f)
	case singleNoPay12:
		return uint64(binary.BigEndian.Uint16(b) & 0x0fff)
	case single8, single16:
		return beUint(b[2:], pointerBytes[nd.kind])
	case sparse12:
		return read12(b[2+nd.n:], i)
	case sparse8, sparse16, sparse24, sparse40:
		w := pointerBytes[nd.kind]
		return beUint(b[2+nd.n+i*w:], w)
	case dense12:
		return read12(b[3:], i)
	default:
		w := pointerBytes[nd.kind]
		return beUint(b[3+i*w:], w)
	}
}

// child returns the position of child i, or ok=false for a dense hole.
// Children lie strictly before their parent: that is what bounds every
// descent by the file size.
func (nd *node) child(g *region, i int) (pos int64, ok bool, err error) {
	d := nd.delta(i)
	if d == 0 {
		if nd.kind >= dense12 {
			return 0, false, nil
		}
		return 0, false, g.corrupt(nd.pos, "follow trie transition %d: zero distance to child", i)
	}
	if d > uint64(nd.pos) {
		return 0, false, g.corrupt(nd.pos, "follow trie transition %d: child %d bytes back lies before the file start", i, d)
	}
	return nd.pos - int64(d), true, nil
}

// search finds the child for byte c (or endOfKey) with Java's
// binarySearch convention: the index if present, else -(insertion)-1.
// A dense hole counts as absent.
func (nd *node) search(c int) int {
	switch {
	case nd.n == 0:
		return -1
	case nd.kind <= single16:
		t := nd.transitionByte(0)
		if c == t {
			return 0
		} else if c < t {
			return -1
		}
		return -2
	case nd.kind <= sparse40:
		lo, hi := 0, nd.n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			t := nd.transitionByte(m)
			if t == c {
				return m
			} else if t < c {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return -lo - 1
	default:
		i := c - int(nd.b[1])
		if i < 0 {
			return -1
		}
		if i >= nd.n {
			return -nd.n - 1
		}
		if nd.delta(i) == 0 {
			return -i - 1
		}
		return i
	}
}

// beUint reads an n-byte unsigned big-endian integer.
func beUint(b []byte, n int) uint64 {
	var v uint64
	for _, x := range b[:n] {
		v = v<<8 | uint64(x)
	}
	return v
}

// beInt reads an n-byte signed big-endian integer (SizedInts.read).
func beInt(b []byte, n int) int64 {
	if n == 0 {
		return 0
	}
	v := int64(int8(b[0]))
	for _, x := range b[1:n] {
		v = v<<8 | int64(x)
	}
	return v
}

// read12 reads packed 12-bit value i: pairs of values share three bytes.
func read12(b []byte, i int) uint64 {
	w := uint64(binary.BigEndian.Uint16(b[3*i/2:]))
	if i&1 == 0 {
		w >>= 4
	}
	return w & 0x0fff
}
