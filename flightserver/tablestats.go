package flightserver

import (
	"context"
	"fmt"
	"math"

	"github.com/sstable-flight/sstable-flight/flightserver/ring"
)

// TableStats is table-stats' result (docs/flight-api.md, "Actions").
type TableStats struct {
	Keyspace     string `json:"keyspace"`
	Table        string `json:"table"`
	ID           string `json:"id"`
	SchemaSource string `json:"schema_source"`
	// SSTables, Bytes, Partitions and Rows are sums over this node's
	// SSTables (of the leased epoch): what it holds, not the table.
	SSTables     int   `json:"sstables"`
	Bytes        int64 `json:"bytes"` // Data.db bytes on disk
	Partitions   int64 `json:"partitions_estimate"`
	Rows         int64 `json:"rows_estimate"`
	MinTimestamp int64 `json:"min_timestamp"` // µs; write times of the SSTables' cells
	MaxTimestamp int64 `json:"max_timestamp"`
	// TablePartitions and TableRows estimate the whole table: on a lone
	// server (Scope "node") the node's sums; planning over a ring (Scope
	// "ring") the node's sums scaled by 1/Share, as planRing scales
	// them to size its splits.
	TablePartitions int64  `json:"table_partitions_estimate"`
	TableRows       int64  `json:"table_rows_estimate"`
	Scope           string `json:"estimate_scope"`
	// Share is the share of the ring this node replicates for the
	// table's keyspace (0 < Share <= 1), given with Scope "ring".
	Share float64 `json:"replicated_share,omitempty"`
	// ScopeReason says why a server that plans over a ring gave Scope
	// "node": the ring could not be read in time, or the node replicates
	// none of the keyspace. Statistics are best-effort: the figures are
	// still the node's.
	ScopeReason string `json:"estimate_scope_reason,omitempty"`
}

// Estimate scopes of TableStats.Scope.
const (
	ScopeNode = "node"
	ScopeRing = "ring"
)

// tableStats sums the table's SSTables of its current epoch on this
// node and estimates the whole table from them.
func (s *service) tableStats(ctx context.Context, keyspace, name string) (*TableStats, error) {
	l, err := s.tables.Acquire(ctx, keyspace, name)
	if err != nil {
		return nil, err
	}
	defer l.Release(ctx)
	// Every figure comes from the leased epoch: its SSTables, as listed
	// when it was cut, and their readers.
	st := &TableStats{Keyspace: l.Table().Keyspace(), Table: l.Table().Name(), ID: l.Epoch().Table.ID, SchemaSource: l.Table().Catalog().Source,
		SSTables: len(l.Readers()), MinTimestamp: math.MaxInt64, MaxTimestamp: math.MinInt64}
	st.Partitions, st.Rows = estimate(l.Readers())
	for _, p := range l.Epoch().Table.SSTables {
		st.Bytes += p.Components["Data.db"]
	}
	for _, r := range l.Readers() {
		st.MinTimestamp = min(st.MinTimestamp, r.Stats.Stats.MinTimestamp)
		st.MaxTimestamp = max(st.MaxTimestamp, r.Stats.Stats.MaxTimestamp)
	}
	if len(l.Readers()) == 0 {
		st.MinTimestamp, st.MaxTimestamp = 0, 0
	}
	st.TablePartitions, st.TableRows, st.Scope = st.Partitions, st.Rows, ScopeNode
	if s.ring == nil {
		return st, nil
	}
	share, err := s.localShare(ctx, keyspace)
	if err != nil {
		st.ScopeReason = err.Error()
		return st, nil
	}
	scale := ring.Scale(share)
	st.TablePartitions = int64(math.Round(float64(st.Partitions) * scale))
	st.TableRows = int64(math.Round(float64(st.Rows) * scale))
	st.Scope, st.Share = ScopeRing, share
	return st, nil
}

// localShare is the share of the ring this node replicates for keyspace,
// for table-stats: it waits for the ring at most RingWait in all, and an
// error says why there is no share to scale by.
func (s *service) localShare(ctx context.Context, keyspace string) (float64, error) {
	wait := s.cfg.Cluster.RingWait
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	rs, m, err := s.ring.Placement(ctx, keyspace)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("estimate over the ring: the ring was not read within %v: %w", wait, err)
		}
		return 0, fmt.Errorf("estimate over the ring: %w", err)
	}
	share := ring.ReplicatedShare(m, rs.Local())
	if share <= 0 {
		return 0, fmt.Errorf("estimate over the ring: this node replicates no range of keyspace %s", keyspace)
	}
	return share, nil
}
