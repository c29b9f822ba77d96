package loadgen

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// reuseConnection is the Flight location that means "the server you
// planned with" (Flight's arrow-flight-reuse-connection scheme).
const reuseConnection = "arrow-flight-reuse-connection"

// Locations reads endpoints where their FlightInfo says: a ring plan
// (docs/architecture.md, "Ring, peers and planning") gives each endpoint
// the servers of its range's replicas, balanced first. An endpoint with
// no location is read from the planning server. Each location is dialled
// once, on first use, with the planning connection's token and options,
// and kept for the run.
//
// A location that fails before its stream delivered a record batch
// (UNAVAILABLE: stopped, unreachable, shedding) is skipped for the next
// one: nothing of it was counted, so the rows are neither missed nor
// read twice. A failure after the first batch fails the endpoint, and so
// the op: reading the rest elsewhere would need the client to know which
// rows it already has.
type Locations struct {
	cfg     *Config
	planner flight.Client

	mu      sync.Mutex
	clients map[string]flight.Client // by host:port and scheme, dialled on first use
	served  map[string]*served       // by location URI ("" for the planner)
}

// served counts what one location read for the run.
type served struct {
	rows, bytes, endpoints, skipped atomic.Int64
}

// LocationServed is what one location served over a run: rows and
// endpoints read from it, and endpoints that skipped it for the next
// location because it failed before a batch.
type LocationServed struct {
	Location  string `json:"location"` // URI; "planner" for endpoints with no location
	Rows      int64  `json:"rows"`
	Bytes     int64  `json:"bytes"`
	Endpoints int64  `json:"endpoints"`
	Skipped   int64  `json:"skipped"`
}

// PlannerLocation names, in Served, the endpoints read from the planning
// server because they carried no location.
const PlannerLocation = "planner"

// NewLocations reads endpoints planned through planner, dialling their
// locations as cfg says (token, CA, dial options).
func NewLocations(cfg *Config, planner flight.Client) *Locations {
	return &Locations{cfg: cfg, planner: planner, clients: map[string]flight.Client{}, served: map[string]*served{}}
}

// Close closes the connections dialled to locations (not the planner's).
func (l *Locations) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, c := range l.clients {
		c.Close()
		delete(l.clients, k)
	}
}

// Served is what each location served so far, by location.
func (l *Locations) Served() []LocationServed {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LocationServed, 0, len(l.served))
	for loc, s := range l.served {
		out = append(out, LocationServed{Location: loc, Rows: s.rows.Load(), Bytes: s.bytes.Load(),
			Endpoints: s.endpoints.Load(), Skipped: s.skipped.Load()})
	}
	slices.SortFunc(out, func(a, b LocationServed) int {
		switch {
		case a.Location < b.Location:
			return -1
		case a.Location > b.Location:
			return 1
		}
		return 0
	})
	return out
}

func (l *Locations) counter(loc string) *served {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.served[loc]
	if s == nil {
		s = &served{}
		l.served[loc] = s
	}
	return s
}

// client is the connection for a location URI, dialled on first use;
// a known location costs a parse and a map lookup, no credentials are
// built (nor the CA file read) again.
func (l *Locations) client(uri string) (flight.Client, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("location %q: %w", uri, err)
	}
	if u.Scheme == reuseConnection {
		return l.planner, nil
	}
	if u.Scheme != "grpc" && u.Scheme != "grpc+tcp" && u.Scheme != "grpc+tls" {
		return nil, fmt.Errorf("location %s: scheme %q: want grpc, grpc+tcp or grpc+tls", uri, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("location %s: no host:port", uri)
	}
	key := u.Scheme + "://" + u.Host
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.clients[key]; ok {
		return c, nil
	}
	creds := insecure.NewCredentials()
	if u.Scheme == "grpc+tls" {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
		if l.cfg.CAFile != "" {
			if creds, err = caCredentials(l.cfg.CAFile); err != nil {
				return nil, fmt.Errorf("location %s: %w", uri, err)
			}
		}
	}
	c, err := flight.NewClientWithMiddleware(u.Host, nil, nil, dialOptions(l.cfg, creds)...)
	if err != nil {
		return nil, fmt.Errorf("dial location %s: %w", uri, err)
	}
	l.clients[key] = c
	return c, nil
}

// caCredentials verifies servers against the CA certificates in file.
func caCredentials(file string) (credentials.TransportCredentials, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read CA file: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s holds no PEM certificate", file)
	}
	return credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}), nil
}

// read reads one endpoint from the first of its locations that delivers
// a batch, or from the planner when it names none.
func (l *Locations) read(ctx context.Context, ep *flight.FlightEndpoint) (Result, error) {
	return l.each(ctx, ep, func(c flight.Client) (Result, int, error) { return readStream(ctx, c, ep.Ticket) })
}

// each runs stream, which reads ep's ticket from c and reports what it
// read and how many record batches, against the planner when ep names
// no location, else against each location in turn until one delivers a
// batch or fails in a way that is not skippable.
func (l *Locations) each(ctx context.Context, ep *flight.FlightEndpoint, stream func(c flight.Client) (Result, int, error)) (Result, error) {
	if len(ep.Location) == 0 {
		return l.readFrom(PlannerLocation, l.planner, stream)
	}
	var errs []error
	for _, loc := range ep.Location {
		c, err := l.client(loc.Uri)
		if err != nil {
			// A location this client cannot dial is no reason to fail an
			// endpoint another location can serve.
			errs = append(errs, err)
			continue
		}
		res, err := l.readFrom(loc.Uri, c, stream)
		if err == nil || !skippable(ctx, err) {
			return res, err
		}
		l.counter(loc.Uri).skipped.Add(1)
		errs = append(errs, fmt.Errorf("location %s: %w", loc.Uri, err))
	}
	return Result{}, fmt.Errorf("read endpoint: no location answered: %w", errors.Join(errs...))
}

// readFrom runs stream on c, counting what it served under loc. A
// failure before the first batch is returned as a beforeBatch error.
func (l *Locations) readFrom(loc string, c flight.Client, stream func(c flight.Client) (Result, int, error)) (Result, error) {
	res, batches, err := stream(c)
	if err != nil && batches == 0 {
		return res, &beforeBatch{err}
	}
	if err == nil {
		s := l.counter(loc)
		s.rows.Add(res.Rows)
		s.bytes.Add(res.Bytes)
		s.endpoints.Add(1)
	}
	return res, err
}

// beforeBatch marks a stream that failed before it delivered a record
// batch: no row of it was counted.
type beforeBatch struct{ err error }

func (e *beforeBatch) Error() string { return e.err.Error() }
func (e *beforeBatch) Unwrap() error { return e.err }

// skippable reports whether err lets an endpoint move on to its next
// location: the stream failed UNAVAILABLE before its first batch, and
// the op itself is not being cancelled.
func skippable(ctx context.Context, err error) bool {
	_, early := err.(*beforeBatch)
	return early && ctx.Err() == nil && codeOf(err) == Unavailable
}
