package kube

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// userAgent names the server in the API server's audit log.
const userAgent = "sstable-flight"

// Client makes the two API calls discovery needs, a list and a watch of
// a namespace's EndpointSlices, over net/http with the credentials of a
// kubeconfig or of the pod's service account. It is not client-go:
// linked, client-go, apimachinery and k8s.io/api raise the server's idle
// RSS by 4-5 MiB whether discovery is on or off (25.0 MiB with a REST
// client of the one API group and client-go's ListWatch, 23.7 with its
// dynamic client, 20.0 without any of them, against an idle-RSS target
// of 21 MiB: docs/PERFORMANCE.md), most of it the pages of the binary
// their inits and types touch.
type Client struct {
	server *url.URL // the API server, with any path prefix
	http   *http.Client
	token  *tokenSource // nil: no bearer token
}

// clientConfig is where the API server is and how to authenticate to
// it, from a kubeconfig or the pod's service account.
type clientConfig struct {
	server     string
	caPEM      []byte // nil: the system's roots
	insecure   bool   // no check of the server's certificate
	serverName string // the name its certificate is checked for, if not the server's host
	proxyURL   string // "": the environment's HTTPS_PROXY and NO_PROXY
	// A client certificate, a bearer token, a file the token is read
	// from (again as it rotates), or a mix.
	certPEM, keyPEM  []byte
	token, tokenFile string
}

// The transport's bounds: client-go's defaults.
const (
	dialTimeout      = 30 * time.Second
	handshakeTimeout = 10 * time.Second
	// An HTTP/2 connection idle this long is pinged, and closed if the
	// ping is not answered in pingTimeout: a watch on a dead connection
	// fails rather than wait for events that never come.
	pingAfter   = 30 * time.Second
	pingTimeout = 15 * time.Second
)

// NewClient builds an API client from the kubeconfig at path, or, with
// path empty, from the pod's service account (in-cluster config).
func NewClient(path string) (*Client, error) {
	var cfg *clientConfig
	var err error
	if path == "" {
		cfg, err = inClusterConfig(serviceAccountDir, os.Getenv)
	} else {
		cfg, err = readKubeconfig(path)
	}
	if err != nil {
		return nil, err
	}
	return newClient(cfg)
}

func newClient(cfg *clientConfig) (*Client, error) {
	u, err := url.Parse(cfg.server)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("API server %q: want an https:// or http:// URL", cfg.server)
	}
	tc := &tls.Config{InsecureSkipVerify: cfg.insecure, ServerName: cfg.serverName, MinVersion: tls.VersionTLS12}
	if cfg.caPEM != nil {
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(cfg.caPEM) {
			return nil, errors.New("API server's CA: no PEM certificate in it")
		}
	}
	if cfg.certPEM != nil || cfg.keyPEM != nil {
		pair, err := tls.X509KeyPair(cfg.certPEM, cfg.keyPEM)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	proxy := http.ProxyFromEnvironment
	if cfg.proxyURL != "" {
		p, err := url.Parse(cfg.proxyURL)
		if err != nil {
			return nil, fmt.Errorf("proxy-url %q: %w", cfg.proxyURL, err)
		}
		proxy = http.ProxyURL(p)
	}
	tr := &http.Transport{
		Proxy:               proxy,
		DialContext:         (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: handshakeTimeout,
		ForceAttemptHTTP2:   true,
		IdleConnTimeout:     90 * time.Second,
		HTTP2:               &http.HTTP2Config{SendPingTimeout: pingAfter, PingTimeout: pingTimeout},
	}
	c := &Client{server: u, http: &http.Client{Transport: tr}}
	switch {
	case cfg.tokenFile != "":
		c.token = &tokenSource{file: cfg.tokenFile}
		if _, err := c.token.get(); err != nil {
			return nil, err
		}
	case cfg.token != "":
		c.token = &tokenSource{token: cfg.token}
	}
	return c, nil
}

// maxResponseBytes bounds a list response and each watch event: an
// object in etcd is at most 1.5 MiB by default, and a service's slices
// are a few.
const maxResponseBytes = 32 << 20

// list lists the namespace's EndpointSlices carrying the label selector.
func (c *Client) list(ctx context.Context, namespace, selector string) (*sliceList, error) {
	const what = "list EndpointSlices"
	resp, err := c.get(ctx, namespace, url.Values{"labelSelector": {selector}}, what)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var l sliceList
	if err := json.NewDecoder(&budgetReader{r: resp.Body, n: maxResponseBytes}).Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: read the answer: %w", what, err)
	}
	return &l, nil
}

// watch opens a watch of the namespace's EndpointSlices carrying the
// label selector, with bookmarks; q adds where it starts. The API
// server ends it after timeout; the request's own deadline is a little
// later, should the server not.
func (c *Client) watch(ctx context.Context, namespace, selector string, q url.Values, timeout time.Duration) (*watchStream, error) {
	q.Set("watch", "true")
	q.Set("allowWatchBookmarks", "true")
	q.Set("labelSelector", selector)
	q.Set("timeoutSeconds", fmt.Sprint(int(timeout.Seconds())))
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	resp, err := c.get(ctx, namespace, q, "watch EndpointSlices")
	if err != nil {
		cancel()
		return nil, err
	}
	body := &budgetReader{r: resp.Body}
	return &watchStream{body: body, dec: json.NewDecoder(body), close: func() { resp.Body.Close(); cancel() }}, nil
}

// get sends a GET of the namespace's EndpointSlices with the query q;
// an answer other than 200 is an error naming what was done.
func (c *Client) get(ctx context.Context, namespace string, q url.Values, what string) (*http.Response, error) {
	u := *c.server
	u.Path = path.Join("/", u.Path, "apis/discovery.k8s.io/v1/namespaces", namespace, "endpointslices")
	u.RawPath = ""
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if c.token != nil {
		tok, err := c.token.get()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, answerError(what, resp)
	}
	return resp, nil
}

// apiError is a call the API server answered with an error status.
type apiError struct {
	what    string
	code    int
	message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s: %s (HTTP %d)", e.what, e.message, e.code)
}

// answerError reads the Status of an error answer.
func answerError(what string, resp *http.Response) error {
	var st apiStatus
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &st) != nil || st.Message == "" {
		st.Message = strings.TrimSpace(string(b))
		if st.Message == "" {
			st.Message = http.StatusText(resp.StatusCode)
		}
	}
	return &apiError{what: what, code: resp.StatusCode, message: st.Message}
}

// isGone: the resource version asked for is older than the API server
// keeps (410): only a new list catches up.
func isGone(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.code == http.StatusGone
}

// watchStream is an open watch: a stream of JSON watch events.
type watchStream struct {
	body  *budgetReader
	dec   *json.Decoder
	close func()
}

// next reads the next event; io.EOF when the API server ended the watch
// between events.
func (w *watchStream) next() (watchEvent, error) {
	var ev watchEvent
	w.body.n = maxResponseBytes
	if err := w.dec.Decode(&ev); err != nil {
		return ev, err
	}
	return ev, nil
}

// errTooLarge is an answer over maxResponseBytes.
var errTooLarge = fmt.Errorf("an answer of the API server is over %d MiB", maxResponseBytes>>20)

// budgetReader reads at most n bytes, then fails with errTooLarge.
type budgetReader struct {
	r io.Reader
	n int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	return n, err
}

// tokenRereadAfter is how long a token read from a file is used before
// the file is read again: the kubelet rotates a service account's token
// (valid an hour) in place, and client-go reads it again each minute.
var tokenRereadAfter = time.Minute

// tokenSource is a bearer token, fixed or read from a file.
type tokenSource struct {
	file string
	mu   sync.Mutex
	// token is the last one read; read, when.
	token string
	read  time.Time
}

// get is the token, the file read again when tokenRereadAfter passed. A
// file that cannot be read again leaves the last token in use.
func (t *tokenSource) get() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file == "" || (t.token != "" && time.Since(t.read) < tokenRereadAfter) {
		return t.token, nil
	}
	b, err := os.ReadFile(t.file)
	tok := strings.TrimSpace(string(b))
	switch {
	case err == nil && tok != "":
		t.token, t.read = tok, time.Now()
	case t.token != "":
		// Keep the last token until the file can be read again.
	case err != nil:
		return "", fmt.Errorf("read the API token: %w", err)
	default:
		return "", fmt.Errorf("read the API token: %s is empty", t.file)
	}
	return t.token, nil
}
