// Package marshal parses the Cassandra type strings that an SSTable's
// Statistics.db serialization header records for its partition key,
// clustering columns and regular/static columns, e.g.
//
//	org.apache.cassandra.db.marshal.Int32Type
//	org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.UTF8Type)
//	org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type))
//	org.apache.cassandra.db.marshal.UserType(ks,61646472657373,7a6970:org.apache.cassandra.db.marshal.Int32Type)
//	org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)
//
// The header is the only schema an SSTable carries, so a reader must turn
// these strings into a type tree before it can decode a single cell: the
// tree says how each value is framed (FixedLength: fixed-width values are
// written with no length prefix, everything else with an unsigned vint
// length) and how to interpret its bytes (Kind, Elems, Dim, FieldNames).
//
// The grammar is the one Cassandra's own TypeParser reads and AbstractType's
// toString methods write (checked against Cassandra 3.x–5.0 sources and the
// strings in Cassandra-written test files):
//
//	type    = blank* class blank* [ "(" params ")" ]
//	class   = identifier                     ; [0-9A-Za-z+-._&]+; a name without
//	                                         ; a dot means org.apache.cassandra.db.marshal.<name>
//	params depend on the class:
//	  ListType, SetType, FrozenType, ReversedType: one type
//	  MapType: key type, value type
//	  TupleType, CompositeType: types, comma separated
//	  UserType: keyspace "," hex(name) { "," hex(field) ":" type }
//	  VectorType: type "," decimal dimension  (Cassandra writes " , ")
//	  DynamicCompositeType: { alias-char "=>" type }, comma separated
//	  PartitionerDefinedOrder: partitioner-class [ ":" type ]
//	  native types: optionally the legacy key/value list, where
//	                "reversed" or "reversed=true" means ReversedType
//
// Blanks (space, tab, newline) are allowed around every token, as
// Cassandra's parser allows them. This parser is stricter than Cassandra's
// in three ways, all on input Cassandra never writes: the empty string is an
// error (Cassandra reads it as BytesType), text after the top-level type is
// an error (Cassandra ignores it), and a parameter list must not start with
// or repeat a comma.
//
// FrozenType and ReversedType do not become nodes: they set the Frozen and
// Reversed flags of the type they wrap, because they change neither the
// value encoding nor (for frozen) anything but whether a collection or UDT
// is stored as one cell or many. Legacy DateType is read as Timestamp: same
// 8-byte encoding, only its (unsigned) sort order differs.
//
// The package is also the one home of the wire codecs that values and keys
// share, for every package that reads or builds them (the SSTable decoder,
// sstable/dump, the Arrow encoder, the Flight server's batcher and planner,
// and tests): Cassandra's vints (ReadUvint, ReadVint, AppendUvint,
// AppendVint, DecodeZigZag, EncodeZigZag; not Go's uvarint) in vint.go,
// CompositeType keys (ReadComponent, SplitComposite, SplitKey, KeyTypes,
// AppendComposite) in composite.go, varint and decimal magnitudes in
// Java's BigInteger form (AppendVarInt, DecodeVarInt) in varint.go, and
// the values framed inside frozen collections, tuples, UDTs and vectors
// (Elements: CollectionElements, FieldElements, VectorElements), with the
// one bounds rule every reader of them keeps, in elements.go. Their
// errors wrap ErrMalformed; reads never panic, and ReadUvint,
// ReadComponent, SplitComposite and Elements do not allocate on success.
//
// The facts of each native type live in kind.go, once: its class, its CQL
// name (CQLNative reads one back), the framing of its cells
// (Type.FixedLength) and the width of its values (Kind.ValueWidth).
package marshal
