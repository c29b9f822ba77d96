package sidecartest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// snapshotDirs resolves a request's keyspace, table and snapshot to the
// snapshot's directory under each table directory (existing or not).
func (s *Server) snapshotDirs(r *http.Request) ([]tableDir, error) {
	snap := r.PathValue("snapshot")
	if !validSnapshot(snap) {
		return nil, errorf(http.StatusBadRequest, "Invalid characters in snapshot name: %s", snap)
	}
	dirs, err := s.tableDirs(r.PathValue("keyspace"), r.PathValue("table"))
	if err != nil {
		return nil, err
	}
	for i := range dirs {
		dirs[i].path = filepath.Join(dirs[i].path, "snapshots", snap)
	}
	return dirs, nil
}

// onSnapshot serves a request on a snapshot with h, given the snapshot's
// directories (snapshotDirs); serialized holds snapMu while h runs, for
// the requests that create or clear.
func (s *Server) onSnapshot(serialized bool, h func(w http.ResponseWriter, r *http.Request, snaps []tableDir)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if serialized {
			s.snapMu.Lock()
			defer s.snapMu.Unlock()
		}
		snaps, err := s.snapshotDirs(r)
		if err != nil {
			answer(w, err)
			return
		}
		h(w, r, snaps)
	}
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, snaps []tableDir) {
	for _, sd := range snaps {
		if _, err := os.Stat(sd.path); err == nil {
			fail(w, http.StatusConflict, fmt.Sprintf("Snapshot %s already exists", r.PathValue("snapshot")))
			return
		}
	}
	for _, sd := range snaps {
		if err := s.snapshotTable(filepath.Dir(filepath.Dir(sd.path)), sd.path); err != nil {
			answer(w, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"result": "Success"})
}

// snapshotTable does what Cassandra's snapshot does to one table
// directory: hard-links the components of every SSTable it has loaded
// (sstables.go), and writes manifest.json (the Data.db files) and
// schema.cql. Called with snapMu held.
func (s *Server) snapshotTable(tableDir, snapDir string) error {
	if err := os.MkdirAll(snapDir, 0o755); err != nil {
		return fmt.Errorf("create snapshot directory: %w", err)
	}
	dataFiles, err := linkSSTables(tableDir, snapDir, s.sstables.learn(tableDir))
	if err != nil {
		return err
	}
	manifest, err := json.Marshal(map[string]any{
		"files":      append([]string{}, dataFiles...),
		"created_at": time.Now().UTC().Format(time.RFC3339Nano),
		"expires_at": nil,
		"ephemeral":  false,
	})
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(snapDir, "manifest.json"), manifest, 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	// Cassandra writes the table's CREATE statement; the fake copies the
	// schema.cql a test corpus keeps next to its SSTables, if any.
	schema, err := os.ReadFile(filepath.Join(tableDir, "schema.cql"))
	if err != nil {
		schema = []byte("-- schema not known to the fake Sidecar\n")
	}
	if err := os.WriteFile(filepath.Join(snapDir, "schema.cql"), schema, 0o644); err != nil {
		return fmt.Errorf("write schema: %w", err)
	}
	return nil
}

// fileInfo is one entry of Sidecar's ListSnapshotFilesResponse, as
// current releases write it: tableName carries the table id.
type fileInfo struct {
	Size         int64  `json:"size"`
	Host         string `json:"host"`
	Port         int    `json:"port"`
	DataDirIndex int    `json:"dataDirIndex"`
	SnapshotName string `json:"snapshotName"`
	KeySpaceName string `json:"keySpaceName"`
	TableName    string `json:"tableName"`
	FileName     string `json:"fileName"`
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, snaps []tableDir) {
	// Sidecar lists secondary index directories' files (one level down,
	// named "<.index>/<file>") only when asked to.
	depth := 1
	if r.URL.Query().Get("includeSecondaryIndexFiles") == "true" {
		depth = 2
	}
	host, port := hostPort(r)
	table := r.PathValue("table")
	files := []fileInfo{}
	for _, sd := range snaps {
		names, err := listFiles(sd.path, depth)
		if err != nil {
			answer(w, err)
			return
		}
		for _, n := range names {
			tableName := table
			if sd.id != "" {
				tableName += "-" + sd.id
			}
			files = append(files, fileInfo{Size: n.size, Host: host, Port: port, DataDirIndex: sd.dataDir,
				SnapshotName: r.PathValue("snapshot"), KeySpaceName: r.PathValue("keyspace"), TableName: tableName, FileName: n.name})
		}
	}
	if len(files) == 0 {
		fail(w, http.StatusNotFound, fmt.Sprintf("Snapshot '%s' not found", r.PathValue("snapshot")))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"snapshotFilesInfo": files})
}

type namedSize struct {
	name string
	size int64
}

// listFiles lists the regular files of a directory, and of its
// subdirectories when depth is 2; a missing directory has none.
func listFiles(dir string, depth int) ([]namedSize, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshot directory: %w", err)
	}
	var out []namedSize
	for _, e := range entries {
		if e.IsDir() && depth > 1 {
			sub, err := listFiles(filepath.Join(dir, e.Name()), depth-1)
			if err != nil {
				return nil, err
			}
			for _, f := range sub {
				out = append(out, namedSize{e.Name() + "/" + f.name, f.size})
			}
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		out = append(out, namedSize{e.Name(), info.Size()})
	}
	return out, nil
}

func (s *Server) clear(w http.ResponseWriter, r *http.Request, snaps []tableDir) {
	found := false
	for _, sd := range snaps {
		if _, err := os.Stat(sd.path); err != nil {
			continue
		}
		found = true
		if err := os.RemoveAll(sd.path); err != nil {
			answer(w, fmt.Errorf("remove snapshot: %w", err))
			return
		}
	}
	if !found {
		fail(w, http.StatusNotFound, fmt.Sprintf("Snapshot '%s' not found", r.PathValue("snapshot")))
		return
	}
	w.WriteHeader(http.StatusOK)
}
