// Package secretfile reads the files an operator keeps secrets in
// (passwords, certificates, private keys, CA bundles; on Kubernetes a
// Secret's volume) and checks that each holds what its option promises,
// so that an option that cannot take effect is refused with the file
// named, never taken for "none" or left to fail at a handshake. The
// server's own TLS (flightserver) and its CQL credentials and TLS
// (flightserver/cqlconn) read their files here.
package secretfile
