package snapshot

import "github.com/sstable-flight/sstable-flight/sstable"

// Unflushed is what a table's commit log holds beyond its SSTables: the
// writes Cassandra acknowledged and has not flushed (issue #28). The
// server implements it over the commit log's overlay; snapshot only asks
// it when cutting an epoch, so that every split of a query reads the
// same SSTables and the same point of the log.
type Unflushed interface {
	// Generation changes whenever what Runs would return for the table
	// changes: a new epoch is cut when it did, even if the SSTables did
	// not.
	Generation(td TableDir) uint64
	// Runs seals the table's unflushed writes that readers' SSTables do
	// not hold (their commit log intervals) into readers of their own,
	// which the epoch closes with itself, and says what they reflect.
	// When the table cannot be read from the log (its bound hit, a
	// damaged segment, a schema not known), it returns no runs and a
	// Freshness saying why: the epoch is then flushed data only, and
	// says so.
	Runs(td TableDir, readers []*sstable.Reader) ([]*sstable.Reader, Freshness)
}

// Freshness is what an epoch reflects of the writes not yet flushed.
type Freshness struct {
	// Through, when the epoch reads the commit log, is the position
	// (segment and offset) its reads reflect.
	Through string
	// FlushedOnly, when it does not, says why: the epoch is the
	// SSTables only.
	FlushedOnly string
}
