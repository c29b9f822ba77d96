package kube

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// envKubeconfig names the kubeconfig of the real API server the tests
// use (tools/kube's kube-harness sets it; make kube-test runs them so).
const envKubeconfig = "SSTF_KUBECONFIG"

// kubeconfigPath is the harness's kubeconfig, or a skip: under CI=true a
// missing API server fails, so CI cannot pass by skipping these.
func kubeconfigPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv(envKubeconfig)
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run this against the real API server (make kube-test)", envKubeconfig)
		}
		t.Skipf("%s is not set: no API server (make kube-test runs one)", envKubeconfig)
	}
	return path
}

// adminClient is client-go's clientset as the harness's admin, for the
// tests to make what a Source reads (the server links none of it).
func adminClient(t *testing.T) kubernetes.Interface {
	t.Helper()
	path := kubeconfigPath(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sourceClient is the Source's own client of the harness's API server,
// from its kubeconfig as the server reads one, edit changing what it
// read (nil: nothing).
func sourceClient(t *testing.T, edit func(*clientConfig)) *Client {
	t.Helper()
	cfg, err := readKubeconfig(kubeconfigPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(cfg)
	}
	c, err := newClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// impersonating makes c's calls as user (the harness's admin may
// impersonate): a test's way to a user of chosen rights.
func impersonating(c *Client, user string) *Client {
	hc := *c.http
	hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Impersonate-User", user)
		return c.http.Transport.RoundTrip(r)
	})
	out := *c
	out.http = &hc
	return &out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// unreachableClient is a client of an address where nothing listens.
func unreachableClient(t *testing.T) *Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := newClient(&clientConfig{server: "https://" + addr, insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// namespace makes a namespace of its own for one test. Nothing deletes
// it: with no controller-manager beside the harness's API server a
// deleted namespace never finishes terminating, so each test's objects
// are deleted instead.
func namespace(t *testing.T, c kubernetes.Interface) string {
	t.Helper()
	ns := fmt.Sprintf("kube-test-%d", time.Now().UnixNano())
	if _, err := c.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	t.Cleanup(func() {
		_ = c.DiscoveryV1().EndpointSlices(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	})
	return ns
}

// forService labels a slice as the service's, as the EndpointSlice
// controller does.
func forService(es *discoveryv1.EndpointSlice, svc string) *discoveryv1.EndpointSlice {
	es.Labels = map[string]string{discoveryv1.LabelServiceName: svc}
	return es
}

// eventually polls cond until it holds or 30 s pass.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, got := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s; last: %s", what, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// proxy forwards TCP connections to target until cut: the API server
// becoming unreachable without stopping it.
type proxy struct {
	target string
	addr   string
	mu     sync.Mutex
	l      net.Listener
	conns  map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p := &proxy{target: target, conns: map[net.Conn]bool{}}
	if err := p.listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) listen(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.l, p.addr = l, l.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
	return nil
}

func (p *proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

// cut closes the listener and every forwarded connection.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}
