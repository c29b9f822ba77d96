// Package murmur3 is Cassandra's variant of the x64 128-bit MurmurHash3
// (utils/MurmurHash.hash3_x64_128): the reference algorithm except that
// tail bytes are sign-extended, as Java's (long) cast of a byte does.
//
// It is the one hash of the module: package token makes the partitioner's
// token of a key from its first half, and the BIG format's bloom filter
// (sstable/big, Filter.db) its bit indexes from both. It imports only the
// standard library.
package murmur3
