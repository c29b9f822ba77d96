// Command sstable-dump prints the raw content of SSTables as JSON in the
// structure of Cassandra's sstabledump: partitions, rows, cells, liveness
// and deletion info, range tombstone markers.
//
//	sstable-dump [--key K]... [--token-range START:END] [--columns a,b] PATH...
//
// PATH is a Data.db file or a table directory (every SSTable in it).
package main
