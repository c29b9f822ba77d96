package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The API-server-only plane's service IP range; serviceIP, its first
// address, is the kubernetes Service's.
const (
	serviceRange = "10.0.0.0/24"
	serviceIP    = "10.0.0.1"
)

// Names of the processes, which are also the binaries' names.
const (
	etcdName      = "etcd"
	apiserverName = "kube-apiserver"
)

// options of one control plane.
type options struct {
	dir     string        // where pki, data, logs, pid files and the kubeconfig go
	bin     string        // where etcd and kube-apiserver are
	timeout time.Duration // for each health wait and each stop
	node    bool          // a single-node Kubernetes (node.go), not just the API server
}

// plane is a started control plane.
type plane struct {
	opts  options
	pki   pki
	procs []*proc
	url   string // the API server's https URL
}

func kubeconfigPath(dir string) string { return filepath.Join(dir, "kubeconfig") }

// planeSpec is what differs between the API-server-only plane and a
// node's: where the API server binds and advertises, its service range,
// the addresses its serving certificate names, the certificates the
// rest of the cluster needs, and its mode-specific flags.
type planeSpec struct {
	host         string   // the API server's bind and advertise address
	serviceRange string   // --service-cluster-ip-range
	servingIPs   []net.IP // besides the kubernetes Service's names
	certs        func(*authority) error
	apiArgs      func(pki) []string
}

// loopbackSpec is the API-server-only plane: on 127.0.0.1, RBAC only, no
// endpoint reconciler.
func loopbackSpec() planeSpec {
	return planeSpec{
		host:         "127.0.0.1",
		serviceRange: serviceRange,
		servingIPs:   []net.IP{net.IPv4(127, 0, 0, 1), net.ParseIP(serviceIP)},
		apiArgs: func(pki) []string {
			return []string{
				"--authorization-mode=RBAC",
				// The reconciler of the kubernetes Service's endpoints refuses a
				// loopback address; nothing here needs those endpoints.
				"--endpoint-reconciler-type=none",
			}
		},
	}
}

// start starts the API-server-only plane.
func start(ctx context.Context, o options) (*plane, error) { return startPlane(ctx, o, loopbackSpec()) }

// startPlane starts etcd, then the API server on it, waits until each
// answers its health check, and writes the kubeconfig. On failure it
// stops what it started and the error carries the log tails.
func startPlane(ctx context.Context, o options, spec planeSpec) (*plane, error) {
	for _, name := range []string{apiserverName, etcdName} {
		if pid, ok, err := runningPid(o.dir, name); err != nil {
			return nil, err
		} else if ok {
			return nil, fmt.Errorf("start in %s: %s already runs there (pid %d); stop it first", o.dir, name, pid)
		}
	}
	// A fresh start each time: state left from an earlier run (an etcd
	// of another CA's objects, a stale kubeconfig) is not this plane's.
	for _, sub := range []string{"etcd", "pki", "kubeconfig", etcdName + ".log", apiserverName + ".log"} {
		if err := os.RemoveAll(filepath.Join(o.dir, sub)); err != nil {
			return nil, fmt.Errorf("clear %s: %w", o.dir, err)
		}
	}
	ca, err := makePKI(filepath.Join(o.dir, "pki"), spec.servingIPs)
	if err != nil {
		return nil, err
	}
	if spec.certs != nil {
		if err := spec.certs(ca); err != nil {
			return nil, err
		}
	}
	p := ca.p
	etcdPorts, err := freePorts("127.0.0.1", 2)
	if err != nil {
		return nil, err
	}
	apiPort, err := freePorts(spec.host, 1)
	if err != nil {
		return nil, err
	}
	client, peer, secure := etcdPorts[0], etcdPorts[1], apiPort[0]
	pl := &plane{opts: o, pki: p, url: "https://" + net.JoinHostPort(spec.host, strconv.Itoa(secure))}
	fail := func(err error) (*plane, error) {
		_ = pl.stop()
		return nil, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	etcd, err := startProc(o.dir, etcdName, filepath.Join(o.bin, etcdName), []string{
		"--name=harness",
		"--data-dir=" + filepath.Join(o.dir, "etcd"),
		"--listen-client-urls=" + etcdURL,
		"--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=harness=" + peerURL,
		// A test store: losing it on a crash costs nothing, and fsync on
		// a disk shared by many builds would slow every write.
		"--unsafe-no-fsync",
		"--log-level=warn",
	})
	if err != nil {
		return fail(err)
	}
	pl.procs = append(pl.procs, etcd)
	if err := waitHealthy(ctx, etcd, http.DefaultClient, etcdURL+"/health", o.timeout); err != nil {
		return fail(fmt.Errorf("start etcd: %w\n%s", err, logTail(o.dir, etcdName, 20)))
	}
	api, err := startProc(o.dir, apiserverName, filepath.Join(o.bin, apiserverName), append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=" + spec.host,
		"--advertise-address=" + spec.host,
		"--secure-port=" + strconv.Itoa(secure),
		"--cert-dir=" + filepath.Join(o.dir, "pki"),
		"--tls-cert-file=" + p.path("apiserver.crt"),
		"--tls-private-key-file=" + p.path("apiserver.key"),
		"--client-ca-file=" + p.path("ca.crt"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.path("sa.pub"),
		"--service-account-signing-key-file=" + p.path("sa.key"),
		"--service-cluster-ip-range=" + spec.serviceRange,
		"--profiling=false",
	}, spec.apiArgs(p)...))
	if err != nil {
		return fail(err)
	}
	pl.procs = append(pl.procs, api)
	admin, err := p.adminClient()
	if err != nil {
		return fail(err)
	}
	// readyz includes the RBAC bootstrap policy's post-start hook: once it
	// answers, cluster-admin and the system roles exist.
	if err := waitHealthy(ctx, api, admin, pl.url+"/readyz", o.timeout); err != nil {
		return fail(fmt.Errorf("start kube-apiserver: %w\n%s", err, logTail(o.dir, apiserverName, 30)))
	}
	if err := writeKubeconfig(kubeconfigPath(o.dir), pl.url, p, "admin"); err != nil {
		return fail(err)
	}
	return pl, nil
}

// stop stops the API server, then etcd, each by its pid file.
func (pl *plane) stop() error { return stopAll(pl.opts) }

func stopAll(o options) error {
	var errs []error
	for _, name := range []string{apiserverName, etcdName} {
		if err := stopProc(o.dir, name, o.timeout); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// freePorts asks the kernel for n free ports on host. They are free
// when asked; another process could take one before etcd or the API
// server binds it, which start then reports as a failed health wait.
func freePorts(host string, n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// waitHealthy polls url until it answers 200, p exits, ctx ends or
// timeout passes.
func waitHealthy(ctx context.Context, p *proc, c *http.Client, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := errors.New("no answer yet")
	for {
		if gone, err := p.exited(); gone {
			return err
		}
		if err := probe(ctx, c, url); err == nil {
			return nil
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy within %s: %w", url, timeout, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func probe(ctx context.Context, c *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return nil
}

// adminClient is an HTTP client that trusts the harness CA and presents
// the admin certificate.
func (p pki) adminClient() (*http.Client, error) {
	pair, err := tls.LoadX509KeyPair(p.path("admin.crt"), p.path("admin.key"))
	if err != nil {
		return nil, fmt.Errorf("load admin certificate: %w", err)
	}
	caPEM, err := os.ReadFile(p.path("ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("read CA: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs:      pool,
		Certificates: []tls.Certificate{pair},
	}}}, nil
}

// writeKubeconfig writes a kubeconfig for the API server at server that
// authenticates with the client pair pair (pair.crt, pair.key in the
// pki), with the CA and the pair inline, so it stays valid wherever it
// is copied.
func writeKubeconfig(path, server string, p pki, pair string) error {
	read := func(name string) ([]byte, error) { return os.ReadFile(p.path(name)) }
	ca, err := read("ca.crt")
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	crt, err := read(pair + ".crt")
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	key, err := read(pair + ".key")
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["harness"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[pair] = &clientcmdapi.AuthInfo{ClientCertificateData: crt, ClientKeyData: key}
	cfg.Contexts["harness"] = &clientcmdapi.Context{Cluster: "harness", AuthInfo: pair, Namespace: "default"}
	cfg.CurrentContext = "harness"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
