package cluster

import "github.com/sstable-flight/sstable-flight/token"

// The ring's tokens and ranges are package token's; these names remain
// only for flightserver, which still spells them cluster.X. Remove them
// once it imports token.
type (
	// Token is token.Token.
	Token = token.Token
	// Range is token.Range.
	Range = token.Range
)

// MinToken is token.Min.
const MinToken = token.Min

// KeyToken is token.Of.
func KeyToken(key []byte) Token { return token.Of(key) }
