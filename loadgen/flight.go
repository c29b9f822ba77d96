package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/sstable-flight/sstable-flight/internal/arrowsize"
)

// Result is what one op read.
type Result struct {
	Rows  int64
	Bytes int64 // Arrow buffer bytes (Flight) or serialized value bytes (CQL)
	// Since, when set, is where the op's latency starts instead of its
	// start: the freshness shape's write acknowledgement.
	Since time.Time
}

func (r *Result) add(o Result) { r.Rows += o.Rows; r.Bytes += o.Bytes }

// DialFlight opens one client connection to cfg.Addr, with cfg's bearer
// token and dial options, for all workers: a Flight client multiplexes
// streams over one HTTP/2 connection, as pyarrow and the Trino connector
// do. The caller's dial options (a test's delaying interceptor) come
// after ours.
func DialFlight(cfg *Config) (flight.Client, error) {
	creds := insecure.NewCredentials()
	if cfg.CAFile != "" {
		var err error
		if creds, err = caCredentials(cfg.CAFile); err != nil {
			return nil, fmt.Errorf("dial flight server %s: %w", cfg.Addr, err)
		}
	}
	c, err := flight.NewClientWithMiddleware(cfg.Addr, nil, nil, dialOptions(cfg, creds)...)
	if err != nil {
		return nil, fmt.Errorf("dial flight server %s: %w", cfg.Addr, err)
	}
	return c, nil
}

// dialOptions are the options of every connection the rig opens, to the
// planning server or a location: creds, the bearer token, cfg's own.
func dialOptions(cfg *Config, creds credentials.TransportCredentials) []grpc.DialOption {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if cfg.Token != "" {
		opts = append(opts, bearer(cfg.Token)...)
	}
	return append(opts, cfg.DialOptions...)
}

// bearer adds "authorization: Bearer <token>" to every call. Interceptors
// rather than per-RPC credentials: gRPC refuses those without TLS.
func bearer(token string) []grpc.DialOption {
	add := func(ctx context.Context) context.Context {
		return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return inv(add(ctx), method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return s(add(ctx), desc, cc, method, opts...)
		}),
	}
}

// readStream reads one endpoint to its end, counting rows, Arrow buffer
// bytes and record batches (Locations moves on to another location only
// before the first); the batches are released as they come, as a client
// that consumes them would.
func readStream(ctx context.Context, c flight.Client, t *flight.Ticket) (res Result, batches int, err error) {
	stream, err := c.DoGet(ctx, t)
	if err != nil {
		return res, 0, fmt.Errorf("do get: %w", err)
	}
	rd, err := flight.NewRecordReader(stream, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return res, 0, fmt.Errorf("read stream schema: %w", err)
	}
	defer rd.Release()
	for rd.Next() {
		rec := rd.RecordBatch()
		res.Rows += rec.NumRows()
		res.Bytes += arrowsize.RecordBytes(rec)
		batches++
	}
	if err := rd.Err(); err != nil {
		return res, batches, fmt.Errorf("read stream: %w", err)
	}
	return res, batches, nil
}

// ReadEndpoints reads every endpoint of an op, each from its locations
// (Locations), at most fanout at once (0: all at once), counting rows
// and Arrow buffer bytes. The first failure cancels the others and is
// the op's error: an op either reads everything or counts as failed.
func ReadEndpoints(ctx context.Context, l *Locations, eps []*flight.FlightEndpoint, fanout int) (Result, error) {
	if len(eps) == 1 {
		return l.read(ctx, eps[0])
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if fanout <= 0 || fanout > len(eps) {
		fanout = len(eps)
	}
	var (
		mu    sync.Mutex
		total Result
		first error
		wg    sync.WaitGroup
	)
	sem := make(chan struct{}, fanout)
	for _, ep := range eps {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := l.read(ctx, ep)
			mu.Lock()
			defer mu.Unlock()
			total.add(r)
			// A stream cancelled because another failed is not the cause.
			if err != nil && (first == nil || isCancel(first) && !isCancel(err)) {
				first = err
				cancel()
			}
		}()
	}
	wg.Wait()
	return total, first
}

// ReadFirst reads endpoints one after another, in plan order, until
// limit rows are read, and counts limit rows at most: a limited scan
// planned over a ring has an endpoint per run of ranges, each stopping
// after limit rows (its app_metadata says "limit_scope":"endpoint"), so
// the first limit rows in token order are the first limit read in
// endpoint order. Bytes count whole batches.
func ReadFirst(ctx context.Context, l *Locations, eps []*flight.FlightEndpoint, limit int64) (Result, error) {
	var total Result
	for _, ep := range eps {
		if total.Rows >= limit {
			break
		}
		r, err := l.read(ctx, ep)
		total.add(r)
		if err != nil {
			return total, err
		}
	}
	total.Rows = min(total.Rows, limit)
	return total, nil
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || codeOf(err) == "Canceled"
}
