// Package flighttest holds what the tests of the Flight server share,
// whether they run it in process (flightserver's and loadgen's tests) or
// as a child process (cmd/sstable-flight's): a server on loopback ports
// for the length of a test (Serve) and a client of it (Dial); reading a
// stream to its end (Each, Drain, Collect, DrainDoGet); a log sink
// many goroutines may write (SyncBuffer), and the address a server
// process logged there (ServingAddr); and a free loopback address for a
// child process' port (FreeAddr).
//
// It imports flightserver, so only external test packages
// (flightserver_test) and packages above flightserver may use it.
package flighttest
