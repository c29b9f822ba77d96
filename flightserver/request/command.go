package request

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/sstable-flight/sstable-flight/token"
)

// CommandVersion is the version of the JSON command this server reads.
const CommandVersion = 1

// Command is a GetFlightInfo request given as a CMD descriptor: a table
// and what to read of it. docs/flight-api.md is its reference.
type Command struct {
	Version  int    `json:"version"`
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	// Columns projects the output (any order); empty means every column.
	Columns []string `json:"columns,omitempty"`
	// CountOnly reads no column at all: the stream's schema has no
	// fields and its record batches carry only their row counts, so
	// `SELECT count(*)` costs the merge alone, no value decoding or
	// transfer. Rows are the same as a read of every column would give.
	CountOnly bool `json:"count_only,omitempty"`
	// Keys restricts the read to these partitions (equality or IN): each
	// maps every partition key column to a value.
	Keys []map[string]json.RawMessage `json:"keys,omitempty"`
	// Clustering restricts the rows of each key to a slice; only with Keys.
	Clustering *ClusteringSlice `json:"clustering,omitempty"`
	// TokenRange restricts a scan to tokens in (start, end].
	TokenRange *TokenRange `json:"token_range,omitempty"`
	// Limit stops after this many rows per endpoint (0: no limit).
	Limit int64 `json:"limit,omitempty"`
	// Splits asks for this many endpoints for a scan (0: the server sizes
	// splits by the row estimates of the SSTables, rowsPerSplit rows a
	// split).
	Splits int `json:"splits,omitempty"`
	// QueryID names the query this plan is one of: the plans naming one
	// id share the read time of its first plan on this server and, per
	// table, that table's first snapshot epoch (flightserver/querypin.go).
	QueryID QueryID `json:"query_id,omitempty"`
}

// QueryID is an opaque id a client gives identically to every plan of
// one query (Trino's query id): 1 to maxQueryIDLen printable ASCII
// characters.
type QueryID string

// MaxQueryIDLen bounds a query id, which the server keeps (QueryPins).
const MaxQueryIDLen = 128

// UnmarshalJSON reads a string and checks it is an id; null is no id, as
// for the command's other members.
func (q *QueryID) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("query_id: %w", err)
	}
	if err := checkQueryID(s); err != nil {
		return err
	}
	*q = QueryID(s)
	return nil
}

// checkQueryID refuses an id that is empty, longer than maxQueryIDLen or
// holds anything but printable ASCII. Its message never quotes the id.
func checkQueryID(id string) error {
	if len(id) == 0 || len(id) > MaxQueryIDLen {
		return fmt.Errorf("query_id of %d bytes: want 1 to %d printable ASCII characters", len(id), MaxQueryIDLen)
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] > 0x7e {
			return fmt.Errorf("query_id: byte %d is not printable ASCII (want 1 to %d printable ASCII characters)", i, MaxQueryIDLen)
		}
	}
	return nil
}

// ClusteringSlice bounds the rows of a partition by a prefix of the
// clustering columns, in the table's clustering order (so for a DESC
// column start holds the larger value).
type ClusteringSlice struct {
	Start *ClusteringBound `json:"start,omitempty"`
	End   *ClusteringBound `json:"end,omitempty"`
}

// ClusteringBound is one end of a slice: values of the first clustering
// columns, and whether rows equal on that prefix are included.
type ClusteringBound struct {
	Values    []json.RawMessage `json:"values"`
	Inclusive bool              `json:"inclusive"`
}

// TokenRange is a Murmur3 token range (start, end]. Tokens are JSON
// numbers or strings (int64 exceeds what many JSON clients keep exact).
type TokenRange struct {
	Start token.Token `json:"start"`
	End   token.Token `json:"end"`
}

// ParseCommand reads and checks a command's shape; names and values are
// checked against the table's schema when planning.
func ParseCommand(b []byte) (*Command, error) {
	c, ok := parseCommandFast(b)
	if !ok {
		var err error
		if c, err = decodeCommand(b); err != nil {
			return nil, err
		}
	}
	switch {
	case c.Version != CommandVersion:
		return nil, fmt.Errorf("read command: version %d, this server reads version %d", c.Version, CommandVersion)
	case c.Keyspace == "" || c.Table == "":
		return nil, fmt.Errorf("read command: keyspace and table are required")
	case c.Limit < 0:
		return nil, fmt.Errorf("read command: negative limit %d", c.Limit)
	case c.Splits < 0 || c.Splits > MaxSplits:
		return nil, fmt.Errorf("read command: splits %d outside 0..%d", c.Splits, MaxSplits)
	case c.Clustering != nil && len(c.Keys) == 0:
		return nil, fmt.Errorf("read command: a clustering slice needs partition keys")
	case c.CountOnly && len(c.Columns) > 0:
		return nil, fmt.Errorf("read command: count_only reads no columns; leave columns out")
	case len(c.Keys) > 0 && c.TokenRange != nil:
		return nil, fmt.Errorf("read command: keys and a token range exclude each other")
	}
	return c, nil
}

// decodeCommand reads any command with encoding/json, as exactly one
// JSON object with each member once: data after it (a second command,
// anything but whitespace), which a Decoder leaves unread, and a member
// given twice, of which encoding/json keeps the last, are refused, as
// parseCommandFast refuses them.
func decodeCommand(b []byte) (*Command, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Command
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("read command: %w", err)
	}
	end := dec.InputOffset()
	if len(bytes.TrimLeft(b[end:], " \t\r\n")) > 0 {
		return nil, fmt.Errorf("read command: data after the command, at offset %d: send one JSON object", end)
	}
	if err := checkMembersOnce(b); err != nil {
		return nil, fmt.Errorf("read command: %w", err)
	}
	return &c, nil
}

// MaxSplits bounds a scan's endpoints, maxKeys a command's distinct
// keys (counted as planning serializes them: duplicates count once).
const (
	MaxSplits = 4096
	MaxKeys   = 10000
)
