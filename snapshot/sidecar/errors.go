package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
)

// StatusError is an answer from Sidecar with an unexpected status. It
// matches fs.ErrNotExist for 404 (no such keyspace, table, snapshot or
// component) and fs.ErrExist for 409 (the snapshot already exists).
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
	return nil
}

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
	return e
}
