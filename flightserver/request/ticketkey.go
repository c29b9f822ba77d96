package request

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// The ticket key file (--ticket-key-file) holds the keys tickets are
// signed with, one a line, each written as hexadecimal text of at least
// MinTicketKeyBytes bytes (openssl rand -hex 32). Blank lines and lines
// starting with # are skipped; spaces around a key are not part of it.
// The first key signs the tickets this server plans; every key verifies
// the tickets it is given. So a cluster rotates its key without
// refusing a query in flight: add the new key as a second line on every
// server, then move it first on every server, then (once the queries
// planned before are done) remove the old one.
//
// Without a file, each server draws a random key at start: its tickets
// are then valid only on the server that planned them and only until it
// restarts.

// MinTicketKeyBytes is the shortest ticket key a server accepts: the
// output size of SHA-256, below which HMAC-SHA256 is weaker than its
// hash (RFC 2104, section 3).
const MinTicketKeyBytes = 32

// maxTicketKeyFile bounds the key file read: a file of keys is a few
// lines; a larger one is not a key file.
const maxTicketKeyFile = 64 << 10

// TicketKeys signs tickets with the first key and verifies them with
// any. Each key keeps a pool of its HMACs, keyed already, so a DoGet does
// not hash the key's pads again.
type TicketKeys struct {
	keys  [][]byte
	pools []*sync.Pool
}

func newTicketKeys(keys [][]byte) *TicketKeys {
	k := &TicketKeys{keys: keys}
	for _, key := range keys {
		k.pools = append(k.pools, &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }})
	}
	return k
}

// LoadTicketKeys reads the key file, or draws a random key when there is
// none. A file that holds no usable key is refused: a server must never
// sign with an empty or guessable key because of a mistyped mount.
func LoadTicketKeys(path string) (*TicketKeys, error) {
	if path == "" {
		key := make([]byte, MinTicketKeyBytes)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("draw a random ticket key: %w", err)
		}
		return newTicketKeys([][]byte{key}), nil
	}
	refuse := func(reason string) error {
		return &snapshot.ConfigError{Field: "TicketKeyFile", Value: path, Reason: reason}
	}
	// NB: Stat follows a symbolic link (a Kubernetes secret mount is one),
	// and a FIFO or device would block or never end: only a regular file.
	st, err := os.Stat(path)
	if err != nil {
		return nil, refuse(err.Error())
	}
	if !st.Mode().IsRegular() {
		return nil, refuse("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, refuse(err.Error())
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTicketKeyFile+1))
	if err != nil {
		return nil, refuse(err.Error())
	}
	if len(b) > maxTicketKeyFile {
		return nil, refuse(fmt.Sprintf("over %d bytes: not a file of ticket keys", maxTicketKeyFile))
	}
	keys, err := parseTicketKeys(b)
	if err != nil {
		return nil, refuse(err.Error())
	}
	return newTicketKeys(keys), nil
}

// parseTicketKeys reads a key file's keys, in order. Its errors name the
// line, never its content: it is a secret.
func parseTicketKeys(b []byte) ([][]byte, error) {
	var keys [][]byte
	for i, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key := make([]byte, hex.DecodedLen(len(line)))
		if _, err := hex.Decode(key, line); err != nil {
			return nil, fmt.Errorf("line %d: not a key in hexadecimal (want %d or more hex digits, e.g. from openssl rand -hex %d)", i+1, 2*MinTicketKeyBytes, MinTicketKeyBytes)
		}
		if len(key) < MinTicketKeyBytes {
			return nil, fmt.Errorf("line %d: a key of %d bytes, at least %d required (%d hex digits)", i+1, len(key), MinTicketKeyBytes, 2*MinTicketKeyBytes)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no key: the file is empty or holds only blank lines and comments")
	}
	return keys, nil
}

// sign appends the signing key's MAC of b to b.
func (k *TicketKeys) sign(b []byte) []byte {
	h := k.pools[0].Get().(hash.Hash)
	defer k.pools[0].Put(h)
	h.Reset()
	h.Write(b)
	return h.Sum(b)
}

// verifies reports whether mac is the MAC of body under any key,
// compared in constant time.
func (k *TicketKeys) verifies(body, mac []byte) bool {
	var sum [sha256.Size]byte
	for i := range k.keys {
		h := k.pools[i].Get().(hash.Hash)
		h.Reset()
		h.Write(body)
		got := h.Sum(sum[:0])
		k.pools[i].Put(h)
		if hmac.Equal(got, mac) {
			return true
		}
	}
	return false
}
