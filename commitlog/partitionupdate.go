package commitlog

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// A PartitionUpdate in a mutation (PartitionUpdateSerializer,
// UnfilteredRowIteratorSerializer, SerializationHeader's messaging form),
// big-endian, vints as in Data.db:
//
//	16 bytes   TableId: UUID msb, lsb
//	vint len   partition key
//	byte       flags: 0x01 empty (nothing follows), 0x02 reversed (never in
//	           a mutation), 0x04 partition deletion, 0x08 static row,
//	           0x10 row estimate
//	EncodingStats  vint minTimestamp − 2015-09-22 in µs,
//	               vint minLocalDeletionTime − 2015-09-22 in s, vint minTTL
//	[Columns]      statics, with a static row: vint count, count × (vint len, name)
//	Columns        regulars, the same
//	rows           sstable.UpdateDecoder's layout: [partition deletion]
//	               [static row] [row estimate] unfiltered* 0x01
//
// NB: the columns are names only: the types come from the table's schema
// (TableSchema), which the log does not hold. They are the columns this
// update writes, not the table's, and the rows' column indexes are into
// them.

// Update flags (UnfilteredRowIteratorSerializer).
const (
	updIsEmpty         = 0x01
	updIsReversed      = 0x02
	updHasDeletion     = 0x04
	updHasStaticRow    = 0x08
	updHasRowEstimate  = 0x10
	updKnownFlags      = 0x1f
	tableIDSize        = 16
	componentMutation  = "mutation"
	maxUpdatesPerEntry = 1 << 16 // a mutation has one update per table of a keyspace
)

// TableID is a table's id, a UUID: its data directory's name ends with
// it in hex.
type TableID [16]byte

// String is the id as a data directory's name ends with it: 32 hex digits.
func (id TableID) String() string { return hex.EncodeToString(id[:]) }

// UUID is the id in the 8-4-4-4-12 form system_schema.tables shows.
func (id TableID) UUID() string { return metadata.UUID(id).String() }

// ParseTableID reads an id in either form.
func ParseTableID(s string) (TableID, error) {
	var id TableID
	h := s
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		h = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	}
	if len(h) != 32 {
		return id, fmt.Errorf("table id %s: not 32 hex digits", snippet.QuoteN(s, 64))
	}
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, fmt.Errorf("table id %s: %w", snippet.QuoteN(s, 64), err)
	}
	return id, nil
}

// TableSchema is what decoding a table's updates needs and the log does
// not hold: its types, as marshal type strings (as a SerializationHeader
// or system_schema names them).
type TableSchema struct {
	Name       string   // keyspace.table, for messages
	Key        string   // the partition key's type (a CompositeType for several columns)
	Clustering []string // the clustering columns' types, in order (ReversedType for a DESC one)
	// Columns maps each static and regular column's name to its type,
	// dropped columns included: an old mutation may still write them.
	Columns map[string]string
}

// Schemas finds a table's schema by id; false for a table it does not
// know (a system table, a dropped one, another keyspace's). The
// decoder keeps what it parsed of a schema while Table returns the same
// pointer: return a new TableSchema when the table changes.
type Schemas interface {
	Table(id TableID) (*TableSchema, bool)
}

// SchemaMap is a Schemas of a fixed set of tables.
type SchemaMap map[TableID]*TableSchema

func (m SchemaMap) Table(id TableID) (*TableSchema, bool) {
	s, ok := m[id]
	return s, ok
}

// ErrUnknownTable is the kind of the error for an update of a table the
// Schemas do not know: the caller may count and skip the rest of the
// mutation (updates are not length-prefixed, so nothing after it can be
// read). Test with errors.Is; MutationError.Table names the table.
var ErrUnknownTable = errors.New("update of an unknown table")

// ErrUnknownColumn is the kind of the error for an update that writes a
// column its table's schema does not have (not even as dropped): the
// schema is older than the mutation.
var ErrUnknownColumn = errors.New("update of a column the schema does not have")

// MutationError says where a mutation did not decode: the offset within
// the mutation's bytes and what was being decoded there; the caller adds
// the segment and the entry's position. It is ErrCorruption unless the
// schema, not the bytes, is at fault (ErrUnknownTable, ErrUnknownColumn).
type MutationError struct {
	Table  TableID // the update's table; zero before its id was read
	Update int     // the update's index in the mutation
	What   string  // what was being decoded: "table id", "row", ...
	Offset int64   // within the mutation
	Err    error
}

func (e *MutationError) Error() string {
	switch {
	case e.Update < 0:
		return fmt.Sprintf("decode mutation: %s at offset %d: %v", e.What, e.Offset, e.Err)
	case e.Table == TableID{}:
		return fmt.Sprintf("decode mutation: update %d: %s at offset %d: %v", e.Update, e.What, e.Offset, e.Err)
	}
	return fmt.Sprintf("decode mutation: update %d (table %s): %s at offset %d: %v", e.Update, e.Table.UUID(), e.What, e.Offset, e.Err)
}

// Is makes errors.Is(err, ErrCorruption) true for bad bytes.
func (e *MutationError) Is(target error) bool {
	return target == ErrCorruption && !errors.Is(e.Err, ErrUnknownTable) && !errors.Is(e.Err, ErrUnknownColumn)
}

func (e *MutationError) Unwrap() error { return e.Err }

// PartitionUpdate is one table's part of a mutation: its header. The
// decoder reuses it and its slices from update to update.
type PartitionUpdate struct {
	Table    TableID
	Schema   *TableSchema
	Key      []byte // the partition key, serialized as in Data.db; aliases the mutation
	Deletion sstable.DeletionTime
	Stats    sstable.EncodingStats
	// Columns is the schema of the update's rows: the table's key and
	// clustering types and, as Static and Regular, the columns the
	// update names, in its order. Cell.Column and ComplexDeletion.Column
	// index these lists.
	Columns     *sstable.Schema
	HasStatic   bool // the first unfiltered is the static row
	RowEstimate int
	// Position is the update's offset within the mutation.
	Position int64
}

// parsedTable is what the decoder parsed of a TableSchema.
type parsedTable struct {
	from    *TableSchema
	schema  sstable.Schema // key and clustering; columns filled per update
	columns map[string]sstable.Column
}

func parseTable(ts *TableSchema) (*parsedTable, error) {
	pt := &parsedTable{from: ts, columns: make(map[string]sstable.Column)}
	k, err := sstable.NewColumn("partition key", ts.Key)
	if err != nil {
		return nil, err
	}
	pt.schema.Key = k.Type
	for i, c := range ts.Clustering {
		col, err := sstable.NewColumn(fmt.Sprintf("clustering %d", i), c)
		if err != nil {
			return nil, err
		}
		pt.schema.Clustering = append(pt.schema.Clustering, col.Type)
	}
	return pt, nil
}

// column resolves a column name, parsing its type once.
func (pt *parsedTable) column(name []byte) (sstable.Column, bool, error) {
	if c, ok := pt.columns[string(name)]; ok {
		return c, true, nil
	}
	typ, ok := pt.from.Columns[string(name)]
	if !ok {
		return sstable.Column{}, false, nil
	}
	c, err := sstable.NewColumn(string(name), typ)
	if err != nil {
		return c, true, err
	}
	pt.columns[string(name)] = c
	return c, true, nil
}
