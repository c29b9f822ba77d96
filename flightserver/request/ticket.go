package request

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/token"
)

// A ticket is one endpoint's work, sealed by the server that planned it
// so that a client can neither edit it nor make one up:
//
//	0        4    5                           n-32          n
//	+--------+----+---------------------------+-------------+
//	| "sstf" | v  | payload: the Ticket, JSON | HMAC-SHA256 |
//	+--------+----+---------------------------+-------------+
//
// v is TicketVersion (one byte). The payload is JSON so that people and
// tests can read it; clients treat the whole as opaque bytes. The MAC is
// HMAC-SHA256 over every byte before it (magic, version and payload)
// under the server's ticket key (ticketkey.go), which the servers of one
// cluster share. DoGet checks the length, the magic and the version,
// then the MAC in constant time (hmac.Equal), and only then decodes the
// payload: no byte of an unverified ticket is parsed. The magic cannot
// begin a JSON command, so a ticket is told from a command sent to DoGet
// by its first bytes (ticketkind.go).
const (
	// TicketVersion is the version of the tickets this server issues
	// and reads. Version 1 was an unsigned JSON object.
	TicketVersion = 2
	ticketMagic   = "sstf"
	ticketHeader  = len(ticketMagic) + 1
	ticketMAC     = sha256.Size
	// maxTicketBytes bounds a ticket, sealed: the planner never issues a
	// larger one (it splits long key lists by their bytes, ticketKeyBytes,
	// and refuses what still does not fit) and DoGet refuses a larger one
	// before hashing it. It is well under gRPC's default 4 MiB limit on a
	// received message, so every ticket issued can be sent back.
	maxTicketBytes = 1 << 20
)

// Ticket is one endpoint's work: a table, then either a token range or
// up to keysPerTicket partition keys (optionally with a clustering
// slice), the read time and the snapshot epoch.
type Ticket struct {
	Keyspace string   `json:"ks"`
	Table    string   `json:"t"`
	Columns  []string `json:"cols,omitempty"`
	// CountOnly is Command.CountOnly: no columns, row counts only.
	CountOnly bool `json:"count,omitempty"`
	// Range is (start, end] in tokens; Start == End is the whole ring.
	Range *[2]token.Token `json:"range,omitempty"`
	// Keys are serialized partition keys (base64 in JSON), distinct and
	// in ring order, read in turn in one stream: an IN list costs one
	// stream, not one per key.
	Keys  [][]byte     `json:"keys,omitempty"`
	Slice *TicketSlice `json:"slice,omitempty"`
	Limit int64        `json:"limit,omitempty"`
	// Now is the read time (seconds since the epoch) fixed at planning,
	// so every endpoint of one query expires TTLs at the same instant.
	Now int64 `json:"now"`
	// Epoch names the snapshot epoch the query was planned on, so every
	// endpoint reads the same SSTables. A ring ticket has none: another
	// server's epochs mean nothing to the one that reads it.
	Epoch string `json:"epoch"`
	// Ring marks a ticket planned over the cluster's ring (flightserver/planring.go):
	// any server of its locations may read it, from that server's current
	// SSTables, once it checked its node replicates all of it (ring/owned.go).
	Ring bool `json:"ring,omitempty"`
}

// TicketSlice is a clustering slice with serialized values.
type TicketSlice struct {
	Start     [][]byte `json:"start,omitempty"`
	StartIncl bool     `json:"start_incl,omitempty"`
	End       [][]byte `json:"end,omitempty"`
	EndIncl   bool     `json:"end_incl,omitempty"`
	HasStart  bool     `json:"has_start,omitempty"`
	HasEnd    bool     `json:"has_end,omitempty"`
}

// Seal writes a ticket in its envelope, signed with the signing key. A
// ticket over maxTicketBytes is refused: DoGet would refuse it back.
func (k *TicketKeys) Seal(t *Ticket) ([]byte, error) {
	// Only strings, numbers and byte slices: Marshal cannot fail.
	payload, _ := json.Marshal(t)
	n := ticketHeader + len(payload) + ticketMAC
	if n > maxTicketBytes {
		return nil, fmt.Errorf("plan ticket of %s.%s: %d bytes, over the %d a ticket may hold (long clustering bounds or keys: send shorter ones)",
			t.Keyspace, t.Table, n, maxTicketBytes)
	}
	b := make([]byte, 0, n)
	b = append(b, ticketMagic...)
	b = append(b, TicketVersion)
	b = append(b, payload...)
	return k.sign(b), nil
}

// Open verifies a sealed ticket and only then decodes and checks it.
func (k *TicketKeys) Open(b []byte) (*Ticket, error) {
	payload, err := k.verify(b)
	if err != nil {
		return nil, err
	}
	return decodePayload(payload)
}

// verify checks a ticket's envelope and MAC and returns its payload.
func (k *TicketKeys) verify(b []byte) ([]byte, error) {
	switch {
	case len(b) > maxTicketBytes:
		return nil, fmt.Errorf("read ticket: %d bytes, over the %d of any ticket this server issues", len(b), maxTicketBytes)
	case len(b) < ticketHeader+ticketMAC || string(b[:len(ticketMagic)]) != ticketMagic:
		return nil, fmt.Errorf("read ticket: not a ticket a plan of this server issued (%d bytes)", len(b))
	case b[len(ticketMagic)] != TicketVersion:
		return nil, fmt.Errorf("read ticket: version %d, this server reads version %d: plan the query again", b[len(ticketMagic)], TicketVersion)
	}
	body := b[:len(b)-ticketMAC]
	if !k.verifies(body, b[len(body):]) {
		return nil, fmt.Errorf("read ticket: its signature does not verify: it was altered, or issued by a server without this one's ticket key (a restart without --ticket-key-file changes the key): plan the query again")
	}
	return body[ticketHeader:], nil
}

// decodePayload reads a verified payload and checks its shape.
func decodePayload(payload []byte) (*Ticket, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var t Ticket
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("read ticket: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("read ticket: data after the ticket")
	}
	if err := t.CheckShape(); err != nil {
		return nil, err
	}
	return &t, nil
}

// CheckShape checks what a ticket may ask that needs no table: the
// planner issues nothing else, so this holds even if a ticket key
// leaked. The table's own checks (key and clustering values against
// their types, columns) are table.checkTicket's.
func (t *Ticket) CheckShape() error {
	switch {
	case t.Keyspace == "" || t.Table == "":
		return fmt.Errorf("read ticket: no keyspace or table")
	case (t.Range == nil) == (t.Keys == nil):
		return fmt.Errorf("read ticket: exactly one of a token range and keys is required")
	case t.Keys != nil && len(t.Keys) == 0:
		return fmt.Errorf("read ticket: empty key list")
	case len(t.Keys) > KeysPerTicket:
		return fmt.Errorf("read ticket: %d keys, at most %d", len(t.Keys), KeysPerTicket)
	case t.Slice != nil && t.Keys == nil:
		return fmt.Errorf("read ticket: a slice needs keys")
	case t.CountOnly && len(t.Columns) > 0:
		return fmt.Errorf("read ticket: count-only with columns")
	case t.Slice != nil && (!t.Slice.HasStart && len(t.Slice.Start) > 0 || !t.Slice.HasEnd && len(t.Slice.End) > 0):
		return fmt.Errorf("read ticket: slice values of an absent bound")
	case t.Limit < 0:
		return fmt.Errorf("read ticket: negative limit")
	case t.Now <= 0:
		return fmt.Errorf("read ticket: no read time")
	case t.Epoch == "" && !t.Ring:
		return fmt.Errorf("read ticket: no snapshot epoch")
	case t.Epoch != "" && t.Ring:
		return fmt.Errorf("read ticket: a ring ticket names no snapshot epoch")
	}
	// Distinct and in ring order, as the planner writes them: a key is
	// read once however the ticket was made.
	prevToken := token.Token(0)
	for i, k := range t.Keys {
		if len(k) > MaxKeyBytes {
			return fmt.Errorf("read ticket: key %d: %d bytes, over Cassandra's %d", i, len(k), MaxKeyBytes)
		}
		tok := token.Of(k)
		if i > 0 && token.CompareDecorated(prevToken, t.Keys[i-1], tok, k) >= 0 {
			return fmt.Errorf("read ticket: key %d repeats a key or is out of ring order", i)
		}
		prevToken = tok
	}
	return nil
}

// KeysPerTicket bounds the partition keys one endpoint reads: an IN list
// of up to this many keys is a single stream. ticketKeyBytes bounds
// their bytes, so that a ticket of long keys stays under maxTicketBytes
// (base64 makes 4 bytes of 3): a list of long keys gets more endpoints.
const (
	KeysPerTicket  = 256
	TicketKeyBytes = 512 << 10
)

// MaxKeyBytes is Cassandra's limit on a serialized partition key, and on
// a clustering value (their lengths are unsigned shorts on disk): no
// longer one can be in an SSTable, so a command asking for one is
// refused.
const MaxKeyBytes = 65535

// Slice is the bounds as the readers take them.
func (ts *TicketSlice) Slice() sstable.Slice {
	sl := sstable.Slice{}
	if ts.HasStart {
		sl.Start = sstable.Bound{Values: ts.Start, Inclusive: ts.StartIncl}
	}
	if ts.HasEnd {
		sl.End = sstable.Bound{Values: ts.End, Inclusive: ts.EndIncl}
	}
	return sl
}

// InspectTicket reads a ticket's payload without verifying its MAC, as a
// person debugging reads one (and tests look at what a plan issued):
// never a ticket to serve, which Open verifies.
func InspectTicket(b []byte) (*Ticket, error) {
	if !IsTicket(b) || len(b) < ticketHeader+ticketMAC {
		return nil, fmt.Errorf("inspect ticket: not a ticket")
	}
	var t Ticket
	if err := json.Unmarshal(b[ticketHeader:len(b)-ticketMAC], &t); err != nil {
		return nil, fmt.Errorf("inspect ticket: %w", err)
	}
	return &t, nil
}
