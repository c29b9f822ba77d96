// Package auth decides who may use the server: the bearer token clients
// send (token.go: where it comes from, what is refused, the check in
// constant time), the server's TLS and the client certificates mTLS
// requires (tls.go), and the admin endpoint (admin.go: /metrics and
// /debug/pprof), which requires what Flight requires.
//
// Each resolves a flightserver.Config field once, before anything
// starts, and refuses material that cannot give what its option promises
// with a snapshot.ConfigError naming the field: a token file that holds
// no token, a key not the certificate's, a CA file with no certificate
// never leave a listener in plaintext or unchecked. It imports
// internal/secretfile and Prometheus, never flightserver.
package auth
