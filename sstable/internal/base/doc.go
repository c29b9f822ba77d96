// Package base holds what every layer of the SSTable reader shares: the
// corruption error kind and Decbuf, a byte decoder with a sticky error.
// Decbuf reads vints with sstable/marshal's codec, the one implementation
// of the encoding that the packages outside sstable share.
// Package sstable re-exports the error kind; nothing here is public API.
package base
