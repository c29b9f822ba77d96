package clustering

import (
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Kind is ClusteringPrefix.Kind: which side of a range a bound is, or
// what else the prefix is. Its value is the byte on disk.
type Kind uint8

const (
	ExclEndBound             Kind = 0
	InclStartBound           Kind = 1
	ExclEndInclStartBoundary Kind = 2
	StaticClustering         Kind = 3
	ClusteringKind           Kind = 4
	InclEndExclStartBoundary Kind = 5
	InclEndBound             Kind = 6
	ExclStartBound           Kind = 7
	MaxKind                       = 7
)

// IsBoundary reports whether the marker closes one deletion and opens another.
func (k Kind) IsBoundary() bool {
	return k == ExclEndInclStartBoundary || k == InclEndExclStartBoundary
}

// IsStart reports whether a bound opens a range.
func (k Kind) IsStart() bool { return k == InclStartBound || k == ExclStartBound }

// Order is ClusteringPrefix.Kind's comparison rank: how prefixes of
// equal values and length sort by kind. An end that excludes its values
// and a start that includes them both sit before the rows with those
// values, a row sits at them, and an inclusive end or exclusive start
// after them.
func (k Kind) Order() int {
	switch k {
	case ExclEndBound, InclStartBound, ExclEndInclStartBoundary:
		return 0
	case StaticClustering:
		return 1
	case ClusteringKind:
		return 2
	}
	return 3
}

// ComparedToClustering is ClusteringPrefix.Kind.comparedToClustering: a
// bound over a strict prefix of a clustering with equal values sorts
// before it (-1) or after it (+1). Whether a bound opens or closes a
// range does not decide it: an exclusive end at (3) closes before every
// row with a = 3, an exclusive start at (3) opens after all of them.
func (k Kind) ComparedToClustering() int {
	if k.Order() == 0 {
		return -1
	}
	if k == ClusteringKind {
		return 0
	}
	return 1
}

// Values reads n clustering values (ClusteringPrefix.Serializer
// .deserializeValuesWithoutSize) and appends them to out: per block of
// 32, a vint header with two bits per value (bit 2j: empty, bit 2j+1:
// null), then the values that are neither, fixed-width raw or
// vint-length-prefixed (Decbuf.Value). The values alias d's buffer.
func Values(d *base.Decbuf, types []*marshal.Type, out [][]byte, n int) [][]byte {
	var header uint64
	for i := 0; i < n && d.Err() == nil; i++ {
		if i%32 == 0 {
			header = d.UVint()
		}
		j := uint(i % 32)
		switch {
		case header&(1<<(2*j+1)) != 0:
			out = append(out, nil)
		case header&(1<<(2*j)) != 0:
			out = append(out, []byte{})
		default:
			out = append(out, d.Value(types[i].FixedLength()))
		}
	}
	return out
}
