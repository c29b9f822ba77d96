package reconcile

import (
	"context"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// Input is a source of unfiltered partitions that a merge reads beside
// the SSTables (Options.Inputs): what Cassandra holds that is not in an
// SSTable yet, the commit log's. Each read opens an sstable.Scanner over
// it, as over an SSTable, so that the merge calls one concrete type: an
// interface between the merge and every scanner cost the scan of one
// SSTable 2.6% more instructions (callgrind-fastpath.sh narrow: 1629 M
// to 1673 M; 1670 M with the scanners called directly behind a branch).
// Its cells name columns of Schema, which may hold columns the table has
// since dropped (they map as an old SSTable's do).
type Input interface {
	// Name names the input in errors, as a file name does an SSTable.
	Name() string
	Schema() *sstable.Schema
	// MaxTimestamp is the largest write time it holds (Statistics.db's
	// for an SSTable): the merge orders its sources by it.
	MaxTimestamp() int64
	ScanRange(ctx context.Context, start, end int64) (*sstable.Scanner, error)
	Get(ctx context.Context, key []byte) (*sstable.Scanner, error)
	GetSlice(ctx context.Context, key []byte, sl sstable.Slice) (*sstable.Scanner, error)
}
