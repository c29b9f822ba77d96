package arrowenc

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// Column kinds, as system_schema.columns spells them.
const (
	KindPartitionKey = "partition_key"
	KindClustering   = "clustering"
	KindStatic       = "static"
	KindRegular      = "regular"
)

// Field metadata keys. Clients that need the CQL type back (a set is an
// Arrow list, a bigint and a counter are both Int64) read it here.
const (
	MetaType            = "cql.type"             // the CQL type, as (*marshal.Type).String() spells it
	MetaKind            = "cql.kind"             // one of the Kind* constants
	MetaClusteringOrder = "cql.clustering_order" // asc or desc; clustering columns only
	MetaPosition        = "cql.position"         // component index; partition key and clustering columns only
)

// ColumnSpec describes one output column.
type ColumnSpec struct {
	Name string
	Type *marshal.Type
	Kind string // one of the Kind* constants
	// Position is the column's index in the partition key or the
	// clustering; ignored for static and regular columns.
	Position int
	// Desc marks a clustering column in descending order. A reversed
	// Type (ReversedType in the SSTable header) means the same.
	Desc bool
}

// Field returns the column's Arrow field: nullable, since any CQL value
// can be null (a static-only row has null clustering values), with the
// cql.* metadata.
func Field(c ColumnSpec) (arrow.Field, error) {
	if c.Type == nil {
		return arrow.Field{}, fmt.Errorf("map column %q: no type", c.Name)
	}
	dt, err := DataType(c.Type)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("map column %q: %w", c.Name, err)
	}
	keys := []string{MetaType, MetaKind}
	vals := []string{c.Type.String(), c.Kind}
	switch c.Kind {
	case KindPartitionKey:
	case KindClustering:
		order := "asc"
		if c.Desc || c.Type.Reversed {
			order = "desc"
		}
		keys, vals = append(keys, MetaClusteringOrder), append(vals, order)
	case KindStatic, KindRegular:
	default:
		return arrow.Field{}, fmt.Errorf("map column %q: unknown column kind %q", c.Name, c.Kind)
	}
	if c.Kind == KindPartitionKey || c.Kind == KindClustering {
		if c.Position < 0 {
			return arrow.Field{}, fmt.Errorf("map column %q: negative position %d", c.Name, c.Position)
		}
		keys, vals = append(keys, MetaPosition), append(vals, strconv.Itoa(c.Position))
	}
	return arrow.Field{Name: c.Name, Type: dt, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}, nil
}

// Schema returns the Arrow schema of the columns, in the given order.
func Schema(cols []ColumnSpec) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		f, err := Field(c)
		if err != nil {
			return nil, err
		}
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil), nil
}

// timestampMS is CQL's timestamp: milliseconds since the epoch, in UTC.
var timestampMS = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}

// DataType returns the Arrow type of a CQL type (docs/types.md). Frozen
// and reversed types map like their plain form: freezing and reversal
// change storage and order, not values. Kinds that never name a CQL
// column (Composite, DynamicComposite, PartitionerOrder) are an error.
func DataType(t *marshal.Type) (arrow.DataType, error) {
	if t == nil {
		return nil, fmt.Errorf("map type: nil type")
	}
	switch t.Kind {
	case marshal.Ascii, marshal.Text, marshal.Inet, marshal.VarInt, marshal.Decimal:
		return arrow.BinaryTypes.String, nil
	case marshal.Blob:
		return arrow.BinaryTypes.Binary, nil
	case marshal.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case marshal.TinyInt:
		return arrow.PrimitiveTypes.Int8, nil
	case marshal.SmallInt:
		return arrow.PrimitiveTypes.Int16, nil
	case marshal.Int:
		return arrow.PrimitiveTypes.Int32, nil
	case marshal.BigInt, marshal.Counter:
		return arrow.PrimitiveTypes.Int64, nil
	case marshal.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case marshal.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case marshal.Timestamp:
		return timestampMS, nil
	case marshal.Date:
		return arrow.FixedWidthTypes.Date32, nil
	case marshal.Time:
		return arrow.FixedWidthTypes.Time64ns, nil
	case marshal.Duration:
		return arrow.FixedWidthTypes.MonthDayNanoInterval, nil
	case marshal.UUID, marshal.TimeUUID:
		return extensions.NewUUIDType(), nil
	case marshal.Empty:
		// EmptyType has one value, the empty one: nothing to carry.
		return arrow.Null, nil
	case marshal.List, marshal.Set:
		if len(t.Elems) != 1 {
			return nil, fmt.Errorf("map type %s: %d element types, want 1", t, len(t.Elems))
		}
		ef, err := elemField("item", t.Elems[0])
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(ef), nil
	case marshal.Map:
		if len(t.Elems) != 2 {
			return nil, fmt.Errorf("map type %s: %d element types, want 2", t, len(t.Elems))
		}
		kf, err := elemField("key", t.Elems[0])
		if err != nil {
			return nil, err
		}
		vf, err := elemField("value", t.Elems[1])
		if err != nil {
			return nil, err
		}
		// Keys stay in stored order, which is Cassandra's comparator
		// order, not Arrow's: KeysSorted stays false.
		return arrow.MapOfWithMetadata(kf.Type, kf.Metadata, vf.Type, vf.Metadata), nil
	case marshal.Tuple, marshal.UDT:
		if t.Kind == marshal.UDT && len(t.FieldNames) != len(t.Elems) {
			return nil, fmt.Errorf("map type %s: %d field names for %d fields", t, len(t.FieldNames), len(t.Elems))
		}
		fields := make([]arrow.Field, len(t.Elems))
		for i, e := range t.Elems {
			name := strconv.Itoa(i)
			if t.Kind == marshal.UDT {
				name = t.FieldNames[i]
			}
			f, err := elemField(name, e)
			if err != nil {
				return nil, err
			}
			fields[i] = f
		}
		return arrow.StructOf(fields...), nil
	case marshal.Vector:
		if len(t.Elems) != 1 || t.Dim <= 0 || t.Dim > math.MaxInt32 {
			return nil, fmt.Errorf("map type %s: want one element type and a positive dimension", t)
		}
		if t.Elems[0].Kind == marshal.Empty {
			return nil, fmt.Errorf("map type %s: vector of empty", t)
		}
		ef, err := elemField("item", t.Elems[0])
		if err != nil {
			return nil, err
		}
		return arrow.FixedSizeListOfField(int32(t.Dim), ef), nil
	}
	return nil, fmt.Errorf("map type %s: no CQL column has kind %s", t, t.Kind)
}

// elemField is the Arrow field of a collection's element, a map's key or
// value, or a tuple's or UDT's field: nullable, with its own cql.type, so
// a client knows an inet inside a UDT (a UDT's cql.type is only its
// name) or a varint inside a list from the utf8 they are carried as.
func elemField(name string, e *marshal.Type) (arrow.Field, error) {
	dt, err := DataType(e)
	if err != nil {
		return arrow.Field{}, err
	}
	return arrow.Field{Name: name, Type: dt, Nullable: true, Metadata: arrow.NewMetadata([]string{MetaType}, []string{e.String()})}, nil
}
