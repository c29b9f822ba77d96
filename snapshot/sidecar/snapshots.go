package sidecar

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// FileInfo is one file of a snapshot as Sidecar lists it.
type FileInfo struct {
	// FileName is the file's name in the snapshot directory, e.g.
	// "nb-1-big-Data.db", "manifest.json" or "schema.cql".
	FileName string
	Size     int64
	// DataDirIndex is the data directory holding the file; component
	// requests pass it back as dataDirectoryIndex.
	DataDirIndex int
	Keyspace     string
	Table        string // the table's name, without its id
	// TableID is the table id of the directory (32 hex digits as in the
	// directory name), "" when Sidecar did not say.
	TableID  string
	Snapshot string
	// Host and Port are the Sidecar that listed the file.
	Host string
	Port int
}

// tableDir is the {table} of the file's component route: name-id when
// the id is known.
func (f FileInfo) tableDir() string {
	if f.TableID == "" {
		return f.Table
	}
	return f.Table + "-" + f.TableID
}

// CreateSnapshot asks Cassandra, through Sidecar, to snapshot a table
// (PUT …/snapshots/{snapshot}): Cassandra flushes it and hard-links its
// live SSTables under each table directory's snapshots/{snapshot}. A
// snapshot of that name that already exists is an error matching
// fs.ErrExist (409); an unknown keyspace or table one matching
// fs.ErrNotExist (404).
func (c *Client) CreateSnapshot(ctx context.Context, keyspace, table, snapshot string) error {
	if err := checkNames(keyspace, table, snapshot); err != nil {
		return fmt.Errorf("create snapshot: %w", err)
	}
	resp, err := c.do(ctx, http.MethodPut, snapshotRoute(keyspace, table, snapshot), nil, http.StatusOK)
	if err != nil {
		return fmt.Errorf("create snapshot %s of %s.%s: %w", snapshot, keyspace, table, err)
	}
	drain(resp.Body)
	return nil
}

// DeleteSnapshot clears a table's snapshot (DELETE …/snapshots/{snapshot})
// and drops its blocks from the cache. An unknown keyspace or table is an
// error matching fs.ErrNotExist (404); so is an unknown snapshot when
// Cassandra reports it as missing (the fake in sidecartest does).
func (c *Client) DeleteSnapshot(ctx context.Context, keyspace, table, snapshot string) error {
	if err := checkNames(keyspace, table, snapshot); err != nil {
		return fmt.Errorf("delete snapshot: %w", err)
	}
	// NB: purge first: blocks cached from this snapshot must not outlive
	// it, or a later snapshot of the same name would read them.
	c.cache.purge(snapshotKeyPrefix(keyspace, table, snapshot))
	resp, err := c.do(ctx, http.MethodDelete, snapshotRoute(keyspace, table, snapshot), nil, http.StatusOK, http.StatusNoContent)
	if err != nil {
		return fmt.Errorf("delete snapshot %s of %s.%s: %w", snapshot, keyspace, table, err)
	}
	drain(resp.Body)
	return nil
}

// ListSnapshot lists a snapshot's files in every data directory (GET
// …/snapshots/{snapshot}), without secondary index files. A snapshot
// with no files is, to Sidecar, no snapshot: fs.ErrNotExist (404).
func (c *Client) ListSnapshot(ctx context.Context, keyspace, table, snapshot string) ([]FileInfo, error) {
	if err := checkNames(keyspace, table, snapshot); err != nil {
		return nil, fmt.Errorf("list snapshot: %w", err)
	}
	route := snapshotRoute(keyspace, table, snapshot)
	resp, err := c.do(ctx, http.MethodGet, route, http.Header{"Accept": {"application/json"}}, http.StatusOK)
	if err != nil {
		return nil, fmt.Errorf("list snapshot %s of %s.%s: %w", snapshot, keyspace, table, err)
	}
	defer drain(resp.Body)
	files, err := decodeListing(resp.Body, keyspace, table, snapshot)
	if err != nil {
		return nil, fmt.Errorf("list snapshot %s of %s.%s: GET %s: %w", snapshot, keyspace, table, route, err)
	}
	return files, nil
}

// listing is Sidecar's ListSnapshotFilesResponse. Releases differ: older
// ones give tableName as the bare name and tableId apart, newer ones
// give tableName as "name-<id>" and no tableId.
type listing struct {
	SnapshotFilesInfo []struct {
		Size         *int64 `json:"size"`
		Host         string `json:"host"`
		Port         int    `json:"port"`
		DataDirIndex int    `json:"dataDirIndex"`
		SnapshotName string `json:"snapshotName"`
		KeySpaceName string `json:"keySpaceName"`
		TableName    string `json:"tableName"`
		TableID      string `json:"tableId"`
		FileName     string `json:"fileName"`
	} `json:"snapshotFilesInfo"`
}

// decodeListing reads a listing; fields an entry leaves empty are those
// of the request.
func decodeListing(r io.Reader, keyspace, table, snapshot string) ([]FileInfo, error) {
	var l listing
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&l); err != nil {
		return nil, fmt.Errorf("decode listing: %w", err)
	}
	out := make([]FileInfo, 0, len(l.SnapshotFilesInfo))
	for _, f := range l.SnapshotFilesInfo {
		if f.FileName == "" || f.Size == nil || *f.Size < 0 {
			return nil, fmt.Errorf("decode listing: entry %+v has no file name or size", f)
		}
		// Cassandra allows no '-' in table names: one separates the id.
		name, id, _ := strings.Cut(f.TableName, "-")
		if f.TableID != "" {
			id = f.TableID
		}
		if name == "" {
			name = table
		}
		if f.KeySpaceName == "" {
			f.KeySpaceName = keyspace
		}
		if f.SnapshotName == "" {
			f.SnapshotName = snapshot
		}
		out = append(out, FileInfo{
			FileName:     f.FileName,
			Size:         *f.Size,
			DataDirIndex: f.DataDirIndex,
			Keyspace:     f.KeySpaceName,
			Table:        name,
			TableID:      id,
			Snapshot:     f.SnapshotName,
			Host:         f.Host,
			Port:         f.Port,
		})
	}
	return out, nil
}
