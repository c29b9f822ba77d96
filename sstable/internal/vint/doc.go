// Package vint is Cassandra's variable-length integer codec
// (utils/vint/VIntCoding): the lengths, counts, timestamps and deltas of
// every SSTable component, and the fields of durations and vectors in
// values. It is a leaf, importing nothing of this module, so that the
// bottom of the reader (sstable/internal/base) can decode vints without
// importing the value codecs above it. sstable/marshal exports the same
// functions to the packages outside sstable; they call these, so there is
// one implementation.
//
// Every function here is small enough for the compiler to inline except
// ReadVint and AppendVint; vints are decoded per cell, so a hot loop calls
// ReadUvint and DecodeZigZag, and a change that pushes ReadUvint over the
// inlining budget shows in the scan benchmarks (check with
// go build -gcflags=-m).
package vint
