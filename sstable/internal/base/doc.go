// Package base holds what every layer of the SSTable reader shares: the
// corruption error kind and Decbuf, a byte decoder with a sticky error.
// Package sstable re-exports the error kind; nothing here is public API.
package base
