package sidecar

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Options configure a Client. The zero value works: http.DefaultClient,
// no credentials, 256 KiB blocks and a 64 MiB cache. New applies the
// defaults (resolve, the one place for them).
type Options struct {
	// HTTPClient sends the requests (TLS, timeouts, proxies); nil is
	// http.DefaultClient. Its Timeout bounds each block read, which has
	// no context of its own (io.ReaderAt takes none).
	HTTPClient *http.Client
	// BearerToken, when set, is sent as "Authorization: Bearer <token>".
	BearerToken string
	// Header is added to every request (another auth scheme, tracing).
	Header http.Header
	// BlockSize is the unit of range requests and of the cache; reads
	// are aligned to it. Zero or less: 256 KiB.
	BlockSize int64
	// CacheBytes bounds the block cache shared by all files of the
	// client. Zero: 64 MiB; negative disables caching (every block read
	// is a request, concurrent ones for a block still shared).
	CacheBytes int64
	// Retries is how often a request answered 429 Too Many Requests or
	// 503 Service Unavailable is retried, after the Retry-After the
	// answer asks for (Sidecar throttles streaming with 429). Zero: 3;
	// negative means never.
	Retries int
	// MaxRetryWait caps one wait between retries. Zero or less: 10s.
	MaxRetryWait time.Duration
}

const (
	defaultBlockSize    = 256 << 10
	defaultCacheBytes   = 64 << 20
	defaultRetries      = 3
	defaultMaxRetryWait = 10 * time.Second
)

// resolve applies the defaults noted on Options.
func (o *Options) resolve() {
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.BlockSize <= 0 {
		o.BlockSize = defaultBlockSize
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = defaultCacheBytes
	}
	if o.Retries == 0 {
		o.Retries = defaultRetries
	}
	if o.MaxRetryWait <= 0 {
		o.MaxRetryWait = defaultMaxRetryWait
	}
}

// Client talks to one Sidecar (one Cassandra node). It is safe for
// concurrent use; all FS values it returns share its block cache.
type Client struct {
	base  string
	hc    *http.Client
	opts  Options
	cache *blockCache
	st    counters
}

// New returns a client of the Sidecar at baseURL (e.g.
// "http://cassandra-0:9043"). A base URL that is not an absolute http or
// https URL with a host is refused here, at start-up, rather than by the
// first query.
func New(baseURL string, opts Options) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("read sidecar base URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("read sidecar base URL %q: want http://HOST:PORT or https://HOST:PORT, with no query", baseURL)
	}
	opts.resolve()
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: opts.HTTPClient, opts: opts}
	c.cache = newBlockCache(opts.CacheBytes, &c.st)
	return c, nil
}

// do sends one request to a route (path and query), retrying throttled
// answers. Any status other than want is returned as a *StatusError, the
// body read and closed; on success the caller closes the body.
func (c *Client) do(ctx context.Context, method, route string, hdr http.Header, want ...int) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, c.base+route, nil)
		if err != nil {
			return nil, fmt.Errorf("build request %s %s: %w", method, route, err)
		}
		for k, vs := range c.opts.Header {
			req.Header[k] = append([]string(nil), vs...)
		}
		for k, vs := range hdr {
			req.Header[k] = vs
		}
		if c.opts.BearerToken != "" {
			req.Header.Set("Authorization", "Bearer "+c.opts.BearerToken)
		}
		c.st.requests.Add(1)
		resp, err := c.hc.Do(req)
		if err != nil {
			c.st.requestErrors.Add(1)
			if ctx.Err() != nil {
				return nil, fmt.Errorf("sidecar %s %s: %w", method, route, err)
			}
			return nil, fmt.Errorf("sidecar %s %s: %w: %w", method, route, ErrUnavailable, err)
		}
		for _, w := range want {
			if resp.StatusCode == w {
				return resp, nil
			}
		}
		serr := newStatusError(method, route, resp)
		c.st.requestErrors.Add(1)
		if (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) && attempt < c.opts.Retries {
			c.st.retries.Add(1)
			if err := sleep(ctx, c.retryWait(resp.Header.Get("Retry-After"))); err != nil {
				return nil, fmt.Errorf("%w (retry: %w)", serr, err)
			}
			continue
		}
		return nil, serr
	}
}

// retryWait is the wait a Retry-After header asks for, in seconds as
// Sidecar sends it (an HTTP date is also allowed), one second when it is
// absent or unreadable, and never more than MaxRetryWait.
func (c *Client) retryWait(h string) time.Duration {
	d := time.Second
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		// NB: the real clock, not an injected one: the date is Sidecar's
		// wall clock and the wait a real one.
		d = time.Until(t)
	}
	return max(0, min(d, c.opts.MaxRetryWait))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// drain reads what is left of a body (so the connection is reused) and
// closes it.
func drain(body io.ReadCloser) {
	io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

// Stats are the client's counters since New, for metrics.
type Stats struct {
	Requests      int64 // HTTP requests sent, retries included
	RequestErrors int64 // requests that failed or got an unexpected status
	Retries       int64 // requests retried after 429 or 503
	RangeRequests int64 // component range requests (block fetches)
	BytesFetched  int64 // component bytes received
	CacheHits     int64 // block reads served from the cache
	CacheMisses   int64 // block reads that fetched the block
	SharedFetches int64 // block reads that waited for another reader's fetch
	Evictions     int64 // blocks dropped to stay within CacheBytes
	CachedBytes   int64 // bytes in the cache now
	CachedBlocks  int64 // blocks in the cache now
}

type counters struct {
	requests, requestErrors, retries, rangeRequests, bytesFetched atomic.Int64
	hits, misses, shared, evictions                               atomic.Int64
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	bytes, blocks := c.cache.usage()
	return Stats{
		Requests:      c.st.requests.Load(),
		RequestErrors: c.st.requestErrors.Load(),
		Retries:       c.st.retries.Load(),
		RangeRequests: c.st.rangeRequests.Load(),
		BytesFetched:  c.st.bytesFetched.Load(),
		CacheHits:     c.st.hits.Load(),
		CacheMisses:   c.st.misses.Load(),
		SharedFetches: c.st.shared.Load(),
		Evictions:     c.st.evictions.Load(),
		CachedBytes:   bytes,
		CachedBlocks:  blocks,
	}
}
