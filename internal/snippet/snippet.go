package snippet

import (
	"encoding/hex"
	"strconv"
)

// Max is how many bytes of file content a message may show.
const Max = 32

// Quote quotes at most Max bytes of b, Go-style (%q).
func Quote(b []byte) string { return QuoteN(string(b), Max) }

// QuoteString quotes at most Max bytes of s.
func QuoteString(s string) string { return QuoteN(s, Max) }

// QuoteN quotes at most n bytes of s and, when it cut s, says how many
// bytes there were.
func QuoteN(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Hex renders at most Max bytes of b in hex (%x).
func Hex(b []byte) string {
	if len(b) <= Max {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:Max]) + "… (" + strconv.Itoa(len(b)) + " bytes)"
}

// Around quotes at most n bytes of s from about n/2 before pos.
func Around(s string, pos, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	start := min(max(0, pos-n/2), len(s))
	end := min(len(s), start+n)
	out := strconv.Quote(s[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) || start > 0 {
		out += "… (" + strconv.Itoa(len(s)) + " bytes)"
	}
	return out
}

// Cut shortens a message built from file content to at most n bytes.
func Cut(msg string, n int) string {
	if len(msg) <= n {
		return msg
	}
	return msg[:n] + "… (" + strconv.Itoa(len(msg)-n) + " more bytes)"
}
