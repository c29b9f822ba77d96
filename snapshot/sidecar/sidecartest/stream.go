package sidecartest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// stream serves one snapshot component, as Sidecar's
// StreamSSTableComponentHandler and FileStreamHandler do.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if s.throttled() {
		w.Header().Set("Retry-After", "0")
		fail(w, http.StatusTooManyRequests, "Retry exhausted")
		return
	}
	path, err := s.componentPath(r)
	if err != nil {
		answer(w, err)
		return
	}
	f, err := os.Open(path)
	if err != nil {
		fail(w, http.StatusNotFound, "The requested file does not exist")
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		fail(w, http.StatusNotFound, "The requested file does not exist")
		return
	}
	size := st.Size()
	if size == 0 {
		// NB: Sidecar refuses to stream an empty file at all.
		fail(w, http.StatusRequestedRangeNotSatisfiable, "The requested file is empty")
		return
	}
	start, end, err := parseRange(r.Header.Get("Range"), size)
	if err != nil {
		fail(w, http.StatusRequestedRangeNotSatisfiable, err.Error())
		return
	}
	h := w.Header()
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(end-start+1, 10))
	// Sidecar answers 200 when the range is the whole file, 206 otherwise.
	if end-start+1 == size {
		w.WriteHeader(http.StatusOK)
	} else {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, size))
		w.WriteHeader(http.StatusPartialContent)
	}
	if r.Method != http.MethodHead {
		io.Copy(w, io.NewSectionReader(f, start, end-start+1))
	}
}

// componentPath resolves the component route to a file. A table given as
// name-<id> is looked up in data directory dataDirectoryIndex; a bare
// name in the table's directories, dataDirectoryIndex counting in them.
func (s *Server) componentPath(r *http.Request) (string, error) {
	keyspace, table, snap, comp := r.PathValue("keyspace"), r.PathValue("table"), r.PathValue("snapshot"), r.PathValue("component")
	m := tableDirRE.FindStringSubmatch(table)
	switch {
	case !identRE.MatchString(keyspace):
		return "", errorf(http.StatusBadRequest, "Invalid characters in keyspace: %s", keyspace)
	case m == nil:
		return "", errorf(http.StatusBadRequest, "Invalid characters in table name: %s", table)
	case !validSnapshot(snap):
		return "", errorf(http.StatusBadRequest, "Invalid characters in snapshot name: %s", snap)
	case !componentRE.MatchString(comp):
		return "", errorf(http.StatusBadRequest, "Invalid component name: %s", comp)
	}
	idx := 0
	if q := r.URL.Query().Get("dataDirectoryIndex"); q != "" {
		var err error
		if idx, err = strconv.Atoi(q); err != nil {
			return "", errorf(http.StatusBadRequest, "Invalid dataDirectoryIndex: %s", q)
		}
	}
	var root, dir string
	if m[2] != "" {
		if idx < 0 || idx >= len(s.dataDirs) {
			return "", errorf(http.StatusBadRequest, "Invalid data directory index: %d", idx)
		}
		root, dir = s.dataDirs[idx], filepath.Join(s.dataDirs[idx], keyspace, table)
	} else {
		dirs, err := s.tableDirs(keyspace, table)
		if err != nil {
			return "", err
		}
		if idx < 0 || idx >= len(dirs) {
			return "", errorf(http.StatusBadRequest, "Invalid data directory index: %d", idx)
		}
		root, dir = s.dataDirs[dirs[idx].dataDir], dirs[idx].path
	}
	path := filepath.Join(dir, "snapshots", snap, comp)
	if !within(root, path) {
		return "", errorf(http.StatusBadRequest, "Invalid component path")
	}
	return path, nil
}

var rangeRE = regexp.MustCompile(`^bytes=(\d*)-(\d*)$`)

// parseRange reads a Range header as Sidecar's HttpRange does: one range
// of the forms start-end, start- and -suffix, clipped to the file; none
// means the whole file. Anything else, or a range that starts past the
// end, is unsatisfiable.
func parseRange(h string, size int64) (start, end int64, err error) {
	if h == "" {
		return 0, size - 1, nil
	}
	m := rangeRE.FindStringSubmatch(h)
	if m == nil || m[1] == "" && m[2] == "" {
		return 0, 0, fmt.Errorf("invalid range header: %s", h)
	}
	num := func(s string) (int64, error) {
		if s == "" {
			return -1, nil
		}
		return strconv.ParseInt(s, 10, 64)
	}
	a, err1 := num(m[1])
	b, err2 := num(m[2])
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("invalid range header: %s", h)
	}
	switch {
	case a < 0: // -suffix
		if b == 0 {
			return 0, 0, fmt.Errorf("range does not satisfy boundary requirements: %s", h)
		}
		start, end = size-min(b, size), size-1
	case b < 0: // start-
		start, end = a, size-1
	default:
		start, end = a, min(b, size-1)
		if b < a {
			return 0, 0, fmt.Errorf("range does not satisfy boundary requirements: %s", h)
		}
	}
	if start > end || start >= size {
		return 0, 0, fmt.Errorf("range does not overlap")
	}
	return start, end, nil
}
