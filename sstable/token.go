package sstable

import "github.com/sstable-flight/sstable-flight/token"

// Murmur3Token and CompareDecorated remain only for flightserver, which
// still calls them: the token of a key and the order of keys are package
// token's (token.Of, token.CompareDecorated). Remove them once
// flightserver imports token.

// Murmur3Token is int64(token.Of(key)).
func Murmur3Token(key []byte) int64 { return int64(token.Of(key)) }

// CompareDecorated is token.CompareDecorated on int64 tokens.
func CompareDecorated(ta int64, a []byte, tb int64, b []byte) int {
	return token.CompareDecorated(token.Token(ta), a, token.Token(tb), b)
}
