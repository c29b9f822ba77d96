// Package arrowenc maps CQL types to Arrow types and appends Cassandra's
// serialized values (the bytes CQL sends and SSTable cells hold) straight
// into reused arrow-go builders: everything of a DoGet stream that is
// Arrow, below the RPC. Batcher (batcher.go) is the one batcher, the one
// the server streams with: reconciled rows into Appenders, cut into
// record batches by rows and bytes; its benchmarks (bench_test.go) measure
// it. RecordSender and SchemaHeaders (ipc.go) write the batches as Flight
// data. Their buffers come from a pool by size class (pool.go), shared by
// all streams: a record batch frees its buffers once sent and the next
// batch, of any stream, reuses them. Built with -tags invariants, a freed
// buffer is poisoned, one freed twice panics, and one written after its
// release panics when handed out again (pool_guard.go).
//
// It imports reconcile (for its rows), marshal and arrow-go; never
// flightserver.
//
// docs/types.md is the mapping, one row per CQL type, with the reasons
// for the choices that are not obvious. In short: every value keeps its
// full information (varint and decimal become text because Cassandra's
// precision and scale are per value, inet becomes its textual address,
// uuid the canonical arrow.uuid extension), and the Arrow type depends on
// the CQL type only, never on the values, so every batch of a table has
// the same schema.
//
// Decoding goes straight from the serialized bytes into typed builders:
// no intermediate Go values, and no allocation per value once the
// builders have grown (BenchmarkAppendNarrow). A malformed value returns
// an error naming the type and the byte length and appends nothing:
// nested values are validated in full before the first child is appended,
// because arrow-go builders cannot take back half a struct or list.
//
// Zero-length values, which Cassandra accepts for most types (an int set
// with blobAsInt(0x)), are null where the type has no empty value (every
// number, boolean, date, time, timestamp, uuid, inet, duration,
// collection and vector) and empty where it has one (text, ascii, blob;
// a tuple or UDT with every field absent).
package arrowenc
