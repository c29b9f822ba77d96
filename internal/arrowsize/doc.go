// Package arrowsize measures Arrow record batches the same way on both
// sides of a Flight stream: the server's sstf_bytes_out_total and the
// load generator's bytes per op count the same bytes.
package arrowsize
