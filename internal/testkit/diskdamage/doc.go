// Package diskdamage is the damaged-disk sweep, which proves that a
// damaged or missing SSTable file fails a read with an error naming the
// file, never a wrong answer or a crash; it is shared by the tests that
// run it: flightserver's, against an in-process server in
// every snapshot mode, and cmd/sstable-flight's, against the binary.
//
// The sweep damages one component file of an SSTable in each of the ways
// a disk or an operator does (Damages), reads the table with a scan, key
// reads and a clustering slice (Queries), and holds each outcome to one
// rule (Check): the intact table's rows, or a clear error naming the file
// relative to the data directory, never OK with other rows. Rows compares
// rows as Render prints them.
package diskdamage
