package sidecartest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Names Sidecar accepts. Keyspace and table names are CQL identifiers;
// a table on the component route may carry "-<table id>"; components are
// the restricted set Sidecar streams (its default
// allowed_chars_for_restricted_component_name). Snapshot names may hold
// anything but a separator or NUL, to which the fake adds "." and "..",
// the names that would leave the snapshots directory.
var (
	identRE     = regexp.MustCompile(`^[A-Za-z0-9_]{1,48}$`)
	tableDirRE  = regexp.MustCompile(`^([A-Za-z0-9_]{1,48})(?:-([0-9A-Fa-f]{1,32}))?$`)
	componentRE = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.db|TOC\.txt)$`)
)

func validSnapshot(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

// tableDir is one directory of a table: its data directory's index, its
// path and the table id its name carries.
type tableDir struct {
	dataDir int
	path    string
	id      string
}

// httpError is a failure with the status to answer.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func errorf(code int, format string, args ...any) *httpError {
	return &httpError{code, fmt.Sprintf(format, args...)}
}

func answer(w http.ResponseWriter, err error) {
	if he, ok := err.(*httpError); ok {
		fail(w, he.code, he.msg)
		return
	}
	fail(w, http.StatusInternalServerError, err.Error())
}

// tableDirs finds a table's directory in each data directory that has
// one: <dataDir>/<keyspace>/<table>-<id> (or plain <table>). Where a
// dropped table left older directories of the same name, the most
// recently modified is the live one.
func (s *Server) tableDirs(keyspace, table string) ([]tableDir, error) {
	if !identRE.MatchString(keyspace) {
		return nil, errorf(http.StatusBadRequest, "Invalid characters in keyspace: %s", keyspace)
	}
	if !identRE.MatchString(table) {
		return nil, errorf(http.StatusBadRequest, "Invalid characters in table name: %s", table)
	}
	var out []tableDir
	keyspaceFound := false
	for i, dd := range s.dataDirs {
		entries, err := os.ReadDir(filepath.Join(dd, keyspace))
		if err != nil {
			continue
		}
		keyspaceFound = true
		var best tableDir
		var bestMod int64
		for _, e := range entries {
			m := tableDirRE.FindStringSubmatch(e.Name())
			if !e.IsDir() || m == nil || m[1] != table {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			if mod := info.ModTime().UnixNano(); best.path == "" || mod > bestMod {
				best, bestMod = tableDir{dataDir: i, path: filepath.Join(dd, keyspace, e.Name()), id: m[2]}, mod
			}
		}
		if best.path != "" {
			out = append(out, best)
		}
	}
	switch {
	case !keyspaceFound:
		return nil, errorf(http.StatusNotFound, "Keyspace %s does not exist", keyspace)
	case len(out) == 0:
		return nil, errorf(http.StatusNotFound, "Unknown keyspace/cf pair (%s.%s)", keyspace, table)
	}
	return out, nil
}

// within reports whether path is inside dir: a last guard, after the
// name checks, against a request reaching outside the data directories.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
