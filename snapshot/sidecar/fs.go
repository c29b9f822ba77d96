package sidecar

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// FS returns one snapshot of a table as an sstable.FS. Open takes the
// base name of the path it is given as the component's file name, so
// sstable.Open(dir+"/nb-1-big-Data.db", sstable.Options{FS: fs}) reads
// the snapshot's nb-1-big-* files whatever dir is.
//
// Sizes come from the snapshot's listing, fetched on the first Open and
// kept (a snapshot does not change), rather than from a probe per file:
// one request serves every component, and the listing also gives each
// file's data directory, which component requests need. A file the
// listing lacks is an error matching fs.ErrNotExist, with no request.
func (c *Client) FS(keyspace, table, snapshot string) sstable.FS {
	return &snapshotFS{c: c, keyspace: keyspace, table: table, snapshot: snapshot}
}

// FSWithListing is FS for a caller that already listed the snapshot
// (ListSnapshot): it uses those files and sends no listing request.
func (c *Client) FSWithListing(keyspace, table, snapshot string, files []FileInfo) sstable.FS {
	s := &snapshotFS{c: c, keyspace: keyspace, table: table, snapshot: snapshot}
	s.files = index(files)
	return s
}

type snapshotFS struct {
	c                         *Client
	keyspace, table, snapshot string

	mu    sync.Mutex
	files map[string]FileInfo // by file name; nil until listed
}

// index maps file names to files. A name listed in several data
// directories (schema.cql, manifest.json; never an SSTable component,
// whose generation is unique to the table) keeps its first entry.
func index(files []FileInfo) map[string]FileInfo {
	m := make(map[string]FileInfo, len(files))
	for _, f := range files {
		if _, dup := m[f.FileName]; !dup {
			m[f.FileName] = f
		}
	}
	return m
}

// listing lists the snapshot once; a failed listing is retried by the
// next Open.
func (s *snapshotFS) listing() (map[string]FileInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files != nil {
		return s.files, nil
	}
	files, err := s.c.ListSnapshot(context.Background(), s.keyspace, s.table, s.snapshot)
	if err != nil {
		return nil, err
	}
	s.files = index(files)
	return s.files, nil
}

func (s *snapshotFS) Open(p string) (sstable.File, io.Closer, error) {
	name := path.Base(filepath.ToSlash(p))
	if err := checkNames(name); err != nil {
		return nil, nil, fmt.Errorf("open sstable component %s: %w", p, err)
	}
	files, err := s.listing()
	if err != nil {
		return nil, nil, fmt.Errorf("open sstable component %s: %w", p, err)
	}
	info, ok := files[name]
	if !ok {
		return nil, nil, fmt.Errorf("open sstable component %s: not in snapshot %s of %s.%s: %w", p, s.snapshot, s.keyspace, s.table, fs.ErrNotExist)
	}
	if info.Table == "" {
		info.Table = s.table // a listing built by hand may leave it out
	}
	f := &remoteFile{
		c:     s.c,
		info:  info,
		name:  p,
		route: componentRoute(s.keyspace, info.tableDir(), s.snapshot, info.FileName, info.DataDirIndex),
		key:   snapshotKeyPrefix(s.keyspace, s.table, s.snapshot) + info.TableID + "\x00" + strconv.Itoa(info.DataDirIndex) + "\x00" + info.FileName,
	}
	// Nothing to release: the file's blocks belong to the client's cache.
	return f, nopCloser{}, nil
}

// snapshotKeyPrefix starts the cache key of every file of a snapshot, so
// DeleteSnapshot can drop them together.
func snapshotKeyPrefix(keyspace, table, snapshot string) string {
	return keyspace + "\x00" + table + "\x00" + snapshot + "\x00"
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
