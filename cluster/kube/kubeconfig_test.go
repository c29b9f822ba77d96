package kube

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/sstable-flight/sstable-flight/internal/testkit/testpki"
)

// pemFiles are a CA, a client certificate and key and a token, as PEM
// and as files in dir.
type pemFiles struct {
	dir                string
	ca, cert, key, tok []byte
}

func newPEMFiles(t *testing.T) pemFiles {
	t.Helper()
	ca := testpki.NewCA(t, "kube-test")
	der, key := ca.Leaf(t, 2, x509.ExtKeyUsageClientAuth)
	p := pemFiles{dir: t.TempDir(), ca: testpki.PEMBlock("CERTIFICATE", ca.DER),
		cert: testpki.PEMBlock("CERTIFICATE", der), key: testpki.KeyPEM(t, key), tok: []byte("file-token")}
	for name, b := range map[string][]byte{"ca.crt": p.ca, "client.crt": p.cert, "client.key": p.key, "token": p.tok} {
		testpki.Write(t, p.dir, name, b)
	}
	return p
}

// TestKubeconfigAsClientGoReadsIt writes kubeconfigs with client-go's
// own writer and checks the server reads each as client-go does: the
// current context's server, CA, TLS options and credentials, inline or
// from files relative to the kubeconfig.
func TestKubeconfigAsClientGoReadsIt(t *testing.T) {
	p := newPEMFiles(t)
	for _, tc := range []struct {
		name    string
		cluster clientcmdapi.Cluster
		user    clientcmdapi.AuthInfo
	}{
		{"inline CA and client certificate",
			clientcmdapi.Cluster{Server: "https://10.1.2.3:6443", CertificateAuthorityData: p.ca},
			clientcmdapi.AuthInfo{ClientCertificateData: p.cert, ClientKeyData: p.key}},
		{"files relative to the kubeconfig",
			clientcmdapi.Cluster{Server: "https://api.example:443/prefix", CertificateAuthority: "ca.crt", TLSServerName: "kubernetes"},
			clientcmdapi.AuthInfo{ClientCertificate: "client.crt", ClientKey: "client.key"}},
		{"token", clientcmdapi.Cluster{Server: "https://10.1.2.3:6443", InsecureSkipTLSVerify: true},
			clientcmdapi.AuthInfo{Token: "inline-token"}},
		{"token file and proxy", clientcmdapi.Cluster{Server: "https://10.1.2.3:6443", CertificateAuthorityData: p.ca, ProxyURL: "http://proxy.example:3128"},
			clientcmdapi.AuthInfo{TokenFile: "token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := clientcmdapi.NewConfig()
			cfg.Clusters["other"] = &clientcmdapi.Cluster{Server: "https://wrong.example"}
			cfg.Clusters["c"] = &tc.cluster
			cfg.AuthInfos["other"] = &clientcmdapi.AuthInfo{Token: "wrong"}
			cfg.AuthInfos["u"] = &tc.user
			cfg.Contexts["other"] = &clientcmdapi.Context{Cluster: "other", AuthInfo: "other"}
			cfg.Contexts["ctx"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u", Namespace: "ns"}
			cfg.CurrentContext = "ctx"
			path := filepath.Join(p.dir, "kubeconfig-"+strings.ReplaceAll(tc.name, " ", "-"))
			if err := clientcmd.WriteToFile(*cfg, path); err != nil {
				t.Fatal(err)
			}
			want, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readKubeconfig(path)
			if err != nil {
				t.Fatal(err)
			}
			sameAsClientGo(t, got, want)
			if _, err := newClient(got); err != nil {
				t.Errorf("newClient: %v", err)
			}
		})
	}
}

// sameAsClientGo compares what the server read with client-go's
// rest.Config of the same kubeconfig, its files read.
func sameAsClientGo(t *testing.T, got *clientConfig, want *rest.Config) {
	t.Helper()
	file := func(data []byte, path string) []byte {
		if len(data) > 0 || path == "" {
			return data
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tls := want.TLSClientConfig
	for _, c := range []struct {
		what      string
		got, want []byte
	}{
		{"CA", got.caPEM, file(tls.CAData, tls.CAFile)},
		{"client certificate", got.certPEM, file(tls.CertData, tls.CertFile)},
		{"client key", got.keyPEM, file(tls.KeyData, tls.KeyFile)},
	} {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s = %q, client-go's %q", c.what, c.got, c.want)
		}
	}
	wantProxy := ""
	if want.Proxy != nil {
		u, err := want.Proxy(nil)
		if err != nil {
			t.Fatal(err)
		}
		wantProxy = u.String()
	}
	// client-go reads a token file once at the start too.
	token := got.token
	if got.tokenFile != "" {
		token = string(file(nil, got.tokenFile))
	}
	for _, c := range []struct{ what, got, want string }{
		{"server", got.server, want.Host},
		{"TLS server name", got.serverName, tls.ServerName},
		{"token", token, want.BearerToken},
		{"token file", got.tokenFile, want.BearerTokenFile},
		{"proxy", got.proxyURL, wantProxy},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, client-go's %q", c.what, c.got, c.want)
		}
	}
	if got.insecure != tls.Insecure {
		t.Errorf("insecure = %v, client-go's %v", got.insecure, tls.Insecure)
	}
}

// TestKubeconfigRefused: what the server cannot use is refused at
// start, naming it, not met at the first call.
func TestKubeconfigRefused(t *testing.T) {
	const head = "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n" +
		"contexts:\n- name: ctx\n  context: {cluster: c, user: u}\n" +
		"clusters:\n- name: c\n  cluster: {server: 'https://10.1.2.3:6443'}\n"
	for _, tc := range []struct{ name, kubeconfig, want string }{
		{"exec plugin", head + "users:\n- name: u\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws}\n", `user "u": an exec credential plugin is not supported`},
		{"auth provider", head + "users:\n- name: u\n  user:\n    auth-provider: {name: gcp}\n", `user "u": an auth-provider plugin is not supported`},
		{"basic auth", head + "users:\n- name: u\n  user: {username: admin, password: secret}\n", `user "u": basic auth (username) is not supported`},
		{"impersonation", head + "users:\n- name: u\n  user: {token: t, as: someone}\n", `user "u": impersonation (as) is not supported`},
		{"no current context", "apiVersion: v1\nkind: Config\n", "no current-context"},
		{"unknown context", "current-context: nope\n", `current-context "nope": no such context`},
		{"no such cluster", "current-context: ctx\ncontexts:\n- name: ctx\n  context: {cluster: c}\n", `context "ctx": no cluster "c"`},
		{"no such user", head, `context "ctx": no user "u"`},
		{"no server", "current-context: ctx\ncontexts:\n- name: ctx\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: true}\n", `cluster "c": no server`},
		{"CA file missing", "current-context: ctx\ncontexts:\n- name: ctx\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {server: 'https://x', certificate-authority: nope.crt}\n", `cluster "c": certificate-authority: open`},
		{"not YAML", "current-context: [\n", "yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if err := os.WriteFile(path, []byte(tc.kubeconfig), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := readKubeconfig(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("readKubeconfig = %v, want an error naming %s and saying %q", err, path, tc.want)
			}
		})
	}
}

// TestClientConfigRefused: a server URL or PEM the client cannot use.
func TestClientConfigRefused(t *testing.T) {
	p := newPEMFiles(t)
	for _, tc := range []struct {
		name string
		cfg  clientConfig
		want string
	}{
		{"no scheme", clientConfig{server: "10.1.2.3:6443"}, "want an https:// or http:// URL"},
		{"CA not PEM", clientConfig{server: "https://x", caPEM: []byte("nonsense")}, "no PEM certificate"},
		{"key of another certificate", clientConfig{server: "https://x", certPEM: p.cert, keyPEM: testpki.KeyPEM(t, testpki.NewKey(t))}, "client certificate"},
		{"token file missing", clientConfig{server: "https://x", tokenFile: filepath.Join(p.dir, "nope")}, "read the API token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := newClient(&tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("newClient = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestInClusterConfig: the pod's API server from its env, the service
// account's CA and token file from its mount; outside a pod, an error
// that says to give --kubeconfig.
func TestInClusterConfig(t *testing.T) {
	p := newPEMFiles(t)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	pod := env(map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"})
	cfg, err := inClusterConfig(p.dir, pod)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.server != "https://[fd00::1]:443" || !bytes.Equal(cfg.caPEM, p.ca) || cfg.tokenFile != filepath.Join(p.dir, "token") {
		t.Errorf("in-cluster config = %+v", cfg)
	}
	if _, err := inClusterConfig(p.dir, env(nil)); err == nil || !strings.Contains(err.Error(), "give --kubeconfig") {
		t.Errorf("without the env: %v, want an error saying to give --kubeconfig", err)
	}
	if _, err := inClusterConfig(t.TempDir(), pod); err == nil || !strings.Contains(err.Error(), "ca.crt") {
		t.Errorf("without the mount: %v, want an error naming ca.crt", err)
	}
}
