package sidecartest

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
)

// Request is one request the fake served.
type Request struct {
	Method string
	Path   string // unescaped URL path
	Query  string // raw query
	Range  string // the Range header, if any
	Status int
}

// Server is a running fake Sidecar. Its URL is the base URL for
// sidecar.New; Client makes one.
type Server struct {
	URL string

	srv      *httptest.Server
	dataDirs []string

	// snapMu serializes snapshot creation and clearing, as Cassandra
	// does per table, and guards sstables.
	snapMu   sync.Mutex
	sstables sstableSet

	mu       sync.Mutex
	reqs     []Request
	throttle int
}

// New starts a fake Sidecar over Cassandra data directories (its
// data_file_directories, in order: dataDirectoryIndex counts in them).
func New(dataDirs ...string) *Server {
	s := &Server{dataDirs: append([]string(nil), dataDirs...), sstables: sstableSet{}}
	s.sstables.learnAll(s.dataDirs) // what the node has open as it runs
	const snap = "/api/v1/keyspaces/{keyspace}/tables/{table}/snapshots/{snapshot}"
	mux := http.NewServeMux()
	mux.HandleFunc("PUT "+snap, s.onSnapshot(true, s.create))
	mux.HandleFunc("GET "+snap, s.onSnapshot(false, s.list))
	mux.HandleFunc("DELETE "+snap, s.onSnapshot(true, s.clear))
	mux.HandleFunc("GET "+snap+"/components/{component}", s.stream)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no route for "+r.Method+" "+r.URL.Path)
	})
	s.srv = httptest.NewServer(s.record(mux))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests served so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ResetRequests forgets the requests served so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Throttle makes the next n component requests answer 429 Too Many
// Requests with Retry-After: 0, as Sidecar does when its stream rate
// limit is exhausted.
func (s *Server) Throttle(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle = n
}

func (s *Server) throttled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.throttle > 0 {
		s.throttle--
		return true
	}
	return false
}

// record wraps the routes to log each request with its status.
func (s *Server) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Range: r.Header.Get("Range"), Status: sw.status})
		s.mu.Unlock()
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// fail writes Sidecar's error payload.
func fail(w http.ResponseWriter, code int, message string) {
	writeJSON(w, code, map[string]any{"status": http.StatusText(code), "code": code, "message": message})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// hostPort is the host and port a listing reports, those the request
// was sent to.
func hostPort(r *http.Request) (string, int) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		return r.Host, 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}

// Client is a client of the fake with opts. Its URL is always a valid
// base URL, so New cannot fail.
func (s *Server) Client(opts sidecar.Options) *sidecar.Client {
	c, err := sidecar.New(s.URL, opts)
	if err != nil {
		panic("sidecartest: " + err.Error())
	}
	return c
}
