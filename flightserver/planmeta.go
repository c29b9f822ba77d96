package flightserver

import (
	"encoding/json"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// planMeta is a plan's FlightInfo.app_metadata, JSON.
//
// A ring plan says how it reads: each range from one replica, as CQL
// reads at consistency ONE; where replicas diverge (writes not yet
// repaired) the row is what that one replica holds (docs/architecture.md,
// "Single-replica semantics"). With a limit it says that the limit holds
// per endpoint: a ring plan has an endpoint per run of ranges with one
// replica set, each stopping after limit rows, so a client that wants
// the first limit rows reads the endpoints in order (FlightInfo.ordered)
// and stops after limit rows.
//
// Every plan says what its epoch reflects of the writes not yet flushed
// (freshness): the commit log position it read through, or why it reads
// the flushed data only.
type planMeta struct {
	Planning         string     `json:"planning,omitempty"`
	Consistency      string     `json:"consistency,omitempty"`
	ReplicasRead     int        `json:"replicas_read,omitempty"`
	Limit            int64      `json:"limit,omitempty"`
	LimitScope       string     `json:"limit_scope,omitempty"`
	EndpointsOrdered bool       `json:"endpoints_ordered,omitempty"`
	Freshness        *freshness `json:"freshness,omitempty"`
}

type freshness struct {
	// CommitLogThrough is "<segment id>:<offset>" when the read includes
	// the commit log's writes up to there.
	CommitLogThrough string `json:"commitlog_through,omitempty"`
	// FlushedOnly says why the read is the SSTables only.
	FlushedOnly string `json:"flushed_only,omitempty"`
}

// planMetadata is p's app_metadata.
func planMetadata(p *planned, limit int64) []byte {
	m := planMeta{Freshness: freshnessOf(p.fresh)}
	if p.ring {
		m.Planning, m.Consistency, m.ReplicasRead = "ring", "ONE", 1
		if limit > 0 {
			m.Limit, m.LimitScope, m.EndpointsOrdered = limit, "endpoint", true
		}
	}
	b, _ := json.Marshal(m) // NB: strings and numbers always marshal
	return b
}

func freshnessOf(f snapshot.Freshness) *freshness {
	if f.Through == "" && f.FlushedOnly == "" {
		return nil
	}
	return &freshness{CommitLogThrough: f.Through, FlushedOnly: f.FlushedOnly}
}
