package flightserver

import (
	"encoding/json"
	"fmt"
)

// TicketVersion is the version of the tickets this server issues. A
// ticket is JSON so people and tests can read it; clients treat it as
// opaque bytes.
const TicketVersion = 1

// Ticket is one endpoint's work: a table, then either a token range or
// one partition key (optionally with a clustering slice).
type Ticket struct {
	Version  int      `json:"v"`
	Keyspace string   `json:"ks"`
	Table    string   `json:"t"`
	Columns  []string `json:"cols,omitempty"`
	// Range is (start, end] in tokens; Start == End is the whole ring.
	Range *[2]Token `json:"range,omitempty"`
	// Keys are serialized partition keys (base64 in JSON), read in this
	// order in one stream: an IN list costs one stream, not one per key.
	Keys  [][]byte     `json:"keys,omitempty"`
	Slice *TicketSlice `json:"slice,omitempty"`
	Limit int64        `json:"limit,omitempty"`
	// Now is the read time (seconds since the epoch) fixed at planning,
	// so every endpoint of one query expires TTLs at the same instant.
	Now int64 `json:"now"`
	// Epoch names the snapshot epoch the query was planned on, so every
	// endpoint reads the same SSTables. Absent: the table's current one.
	Epoch string `json:"epoch,omitempty"`
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

// Encode serializes the ticket.
func (t *Ticket) Encode() []byte {
	// Only strings, numbers and byte slices: Marshal cannot fail.
	b, _ := json.Marshal(t)
	return b
}

// DecodeTicket reads a ticket and checks its shape.
func DecodeTicket(b []byte) (*Ticket, error) {
	var t Ticket
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("read ticket: %w", err)
	}
	switch {
	case t.Version != TicketVersion:
		return nil, fmt.Errorf("read ticket: version %d, this server reads version %d", t.Version, TicketVersion)
	case t.Keyspace == "" || t.Table == "":
		return nil, fmt.Errorf("read ticket: no keyspace or table")
	case (t.Range == nil) == (t.Keys == nil):
		return nil, fmt.Errorf("read ticket: exactly one of a token range and keys is required")
	case t.Keys != nil && len(t.Keys) == 0:
		return nil, fmt.Errorf("read ticket: empty key list")
	case t.Slice != nil && t.Keys == nil:
		return nil, fmt.Errorf("read ticket: a slice needs keys")
	case t.Limit < 0:
		return nil, fmt.Errorf("read ticket: negative limit")
	case t.Now <= 0:
		return nil, fmt.Errorf("read ticket: no read time")
	}
	return &t, nil
}
