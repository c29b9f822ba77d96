// Package dump renders SSTables as JSON in the structure of Cassandra's own
// sstabledump (tools/SSTableExport, tools/JsonTransformer): partitions with
// their key, position and deletion, then static blocks, rows (clustering,
// liveness info, deletion, cells) and range tombstone bounds and
// boundaries. Values are printed as Cassandra's toJSONString prints them.
//
// It exists to be compared with sstabledump: the differential test holds
// our reader to Cassandra's on every corpus Data.db. The comparison
// normalises formatting only:
//
//   - JSON is compared parsed: whitespace, key order and string escapes
//     do not matter;
//   - numbers compare by exact decimal value, or as the same float64, or
//     (spellings of at most 9 significant digits) as the same float32:
//     Java 17's Float.toString may print more digits than the shortest
//     form that round-trips (1.17549435E-38 for 1.1754944E-38);
//   - "expired" flags are dropped: sstabledump computes them from the
//     wall clock at dump time.
//
// Everything else, down to each timestamp's microseconds, must be equal.
package dump
