package fresh

import (
	"context"
	"encoding/binary"
	"fmt"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// nodeState is what replay's rule needs of the node besides the
// SSTables: its host id (only its own SSTables' intervals count) and the
// position each truncated table was truncated at (what precedes it is
// gone, flushed or not).
type nodeState struct {
	host      metadata.UUID
	truncated map[commitlog.TableID]commitlog.Position
}

// readNode reads system.local's host_id and truncated_at.
func readNode(ctx context.Context, s *gocql.Session) (nodeState, error) {
	var host gocql.UUID
	var trunc map[gocql.UUID][]byte
	if err := s.Query("SELECT host_id, truncated_at FROM system.local").WithContext(ctx).Scan(&host, &trunc); err != nil {
		return nodeState{}, fmt.Errorf("read host id and truncations from system.local: %w", err)
	}
	st := nodeState{host: metadata.UUID(host), truncated: map[commitlog.TableID]commitlog.Position{}}
	for id, b := range trunc {
		pos, err := truncation(b)
		if err != nil {
			return nodeState{}, fmt.Errorf("read system.local's truncated_at of table %s: %w", id, err)
		}
		st.truncated[commitlog.TableID(id)] = pos
	}
	return st, nil
}

// truncation decodes a truncation record (SystemKeyspace's
// truncationAsMapEntry): the commit log position (segment id, a long;
// offset, an int), then the time, a long.
func truncation(b []byte) (commitlog.Position, error) {
	if len(b) < 12 {
		return commitlog.Position{}, fmt.Errorf("%d bytes, want at least 12", len(b))
	}
	return commitlog.Position{SegmentID: int64(binary.BigEndian.Uint64(b)), Offset: int64(int32(binary.BigEndian.Uint32(b[8:])))}, nil
}
