// Package testpki makes throwaway certificates for TLS tests: a CA and
// the leaves it signs, as parsed certificates and PEM files.
package testpki
