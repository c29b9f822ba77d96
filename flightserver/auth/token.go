package auth

import (
	"crypto/subtle"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// The bearer token: where it comes from and what is refused. A token
// source that holds no token must never be taken for "serve without
// authentication": the operator who gave one believes it is required.

// MinTokenLen is the shortest token a server accepts: a floor that
// refuses placeholders ("test", "changeme") and tokens short enough to
// guess, not a measure of randomness (generate one: openssl rand -hex 32).
const MinTokenLen = 16

// maxAuthTokenFileBytes caps the token file's read: a token is a line,
// and a path mistyped onto a huge file or a device must not be read
// whole.
const maxAuthTokenFileBytes = 4096

// ResolveToken is the server's bearer token: token, or the content of
// file, checked (Config.AuthToken and AuthTokenFile, which the errors
// name). Its ConfigErrors never hold the token, only where it came from.
// "", nil: no token, the server serves without authentication.
func ResolveToken(token, file string) (string, error) {
	field, value := "AuthToken", ""
	if file != "" {
		field, value = "AuthTokenFile", strconv.Quote(file)
		if token != "" {
			return "", &snapshot.ConfigError{Field: field, Value: value, Reason: "given with AuthToken too: give the token one way, not both"}
		}
		tok, err := readTokenFile(file)
		if err != nil {
			return "", &snapshot.ConfigError{Field: field, Value: value, Reason: err.Error()}
		}
		if tok == "" {
			return "", &snapshot.ConfigError{Field: field, Value: value, Reason: "holds no token (empty or only whitespace): refusing to serve without authentication; give no token file to serve without a token"}
		}
		token = tok
	}
	if token == "" {
		return "", nil
	}
	if n := len(token); n < MinTokenLen {
		return "", &snapshot.ConfigError{Field: field, Value: value, Reason: fmt.Sprintf("the token has %d characters, at least %d are required (e.g. openssl rand -hex 32)", n, MinTokenLen)}
	}
	for i := 0; i < len(token); i++ {
		// NB: clients send it in a gRPC header, whose values are
		// visible ASCII: a token with a space, a control character or
		// a non-ASCII byte is one no client could send reliably.
		if b := token[i]; b < 0x21 || b > 0x7e {
			return "", &snapshot.ConfigError{Field: field, Value: value, Reason: fmt.Sprintf("the token's character %d is not visible ASCII (a space, a control character or non-ASCII): clients send it in a header", i+1)}
		}
	}
	return token, nil
}

// readTokenFile reads a token file, capped, and trims its surrounding
// whitespace.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read token file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAuthTokenFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("read token file: %w", err)
	}
	if len(b) > maxAuthTokenFileBytes {
		return "", fmt.Errorf("read token file: larger than %d bytes, not a token", maxAuthTokenFileBytes)
	}
	return strings.TrimSpace(string(b)), nil
}

// ValidBearer reports whether one of the authorization values is
// "Bearer <token>" (the scheme in any case, RFC 7235), compared in
// constant time.
func ValidBearer(values []string, token string) bool {
	for _, v := range values {
		scheme, tok, ok := strings.Cut(v, " ")
		if ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(tok), []byte(token)) == 1 {
			return true
		}
	}
	return false
}
