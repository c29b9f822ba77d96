// Package base holds what every layer of the SSTable reader shares: the
// corruption error kind and Decbuf, a byte decoder with a sticky error.
// Decbuf reads vints with sstable/internal/vint, the one implementation of
// the encoding, which sstable/marshal exports to the packages outside
// sstable. Base imports no package of the reader above it.
// Package sstable re-exports the error kind; nothing here is public API.
package base
