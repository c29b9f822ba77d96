package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
)

// StatusError is an answer from Sidecar with an unexpected status. It
// matches fs.ErrNotExist for 404 (no such keyspace, table, snapshot or
// component), fs.ErrExist for 409 (the snapshot already exists) and
// ErrUnavailable for a 5xx (Sidecar, or the node behind it, failed).
type StatusError struct {
	Method  string
	Route   string // path and query, e.g. /api/v1/keyspaces/ks/tables/t/snapshots/s
	Code    int
	Message string // Sidecar's "message" (or the start of the body)
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("sidecar %s %s: %d %s", e.Method, e.Route, e.Code, http.StatusText(e.Code))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *StatusError) Unwrap() error {
	switch e.Code {
	case http.StatusNotFound:
		return fs.ErrNotExist
	case http.StatusConflict:
		return fs.ErrExist
	}
	if e.Code >= 500 {
		return ErrUnavailable
	}
	return nil
}

// ErrUnavailable reports a request Sidecar did not serve: it answered
// with a 5xx (a snapshot Cassandra could not take, say), or could not be
// reached. The request may work later, or on another replica.
var ErrUnavailable = errors.New("sidecar did not serve the request")

// ErrInvalidName reports a keyspace, table, snapshot or component name
// that cannot be a single path segment (empty, ".", "..", or holding '/'
// or NUL); it is refused before any request.
var ErrInvalidName = errors.New("invalid name")

// newStatusError reads Sidecar's error payload, {"status", "code",
// "message"}, and closes the body.
func newStatusError(method, route string, resp *http.Response) *StatusError {
	defer drain(resp.Body)
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	e := &StatusError{Method: method, Route: route, Code: resp.StatusCode}
	var payload struct {
		Status  string `json:"status"`
		Message any    `json:"message"`
	}
	switch {
	case json.Unmarshal(b, &payload) != nil:
		e.Message = strings.TrimSpace(string(b))
		if len(e.Message) > 200 {
			e.Message = e.Message[:200] + "…"
		}
	case payload.Message != nil:
		e.Message = fmt.Sprint(payload.Message)
	case payload.Status != http.StatusText(resp.StatusCode):
		e.Message = payload.Status
	}
	if e.Message == "" {
		// Sidecar puts a 416's reason in the status line only.
		e.Message = strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode)))
		if e.Message == http.StatusText(resp.StatusCode) {
			e.Message = ""
		}
	}
	e.Message = nodeRelative(e.Message)
	return e
}

// nodePath is an absolute path in a message, up to a space, a quote or
// a bracket.
var nodePath = regexp.MustCompile(`(^|[\s'"(\[=,])(/[^\s'"()\[\],]+)`)

// nodeRelative names the node's files in a Sidecar message (Cassandra's
// own errors name them by absolute path, /var/lib/cassandra/data/ks/t-id/
// ...) from their keyspace directory on, as the server names every file
// relative to its data directory: a path with a table directory in it
// (<keyspace>/<table>-<32 hex digit id>) keeps that and what follows;
// any other absolute path only its last element.
func nodeRelative(msg string) string {
	return nodePath.ReplaceAllStringFunc(msg, func(m string) string {
		lead, p := "", m
		if m[0] != '/' {
			lead, p = m[:1], m[1:]
		}
		parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
		for i := 2; i < len(parts); i++ {
			if tableDirName.MatchString(parts[i]) && parts[i-1] != "" {
				return lead + strings.Join(parts[i-1:], "/")
			}
		}
		return lead + "…/" + parts[len(parts)-1]
	})
}

// tableDirName is a table directory's name, <table>-<id>.
var tableDirName = regexp.MustCompile(`^[A-Za-z0-9_]+-[0-9a-f]{32}$`)
