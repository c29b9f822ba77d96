// Command sstable-flight serves the SSTables of a Cassandra data directory
// as Arrow over Flight.
//
// Until the Flight server lands, it lists what it would serve: the tables
// of each data directory and their SSTable files. With no flags it uses the
// committed corpus (the embedded default), so it runs without Cassandra.
package main
