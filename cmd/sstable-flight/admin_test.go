package main_test

// Issue #15, finding 9: the admin port (/metrics, /debug/pprof) is off
// when its address is empty, serves pprof only when asked, and takes
// Flight's TLS and token; /metrics may be left open by flag.

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// TestAdminListenEmptyIsOff: --admin-listen "" serves no admin port:
// the process listens on the Flight address only.
func TestAdminListenEmptyIsOff(t *testing.T) {
	bin := buildServer(t)
	s := spawn(t, bin, nil, liveArgs(t, "--admin-listen", "")...)
	if !s.waitServing(t) {
		s.fatalf(t, "did not serve: %v", s.waitErr)
	}
	dial(t, s) // serving, so every listener is open
	got := listening(t, s.cmd.Process.Pid)
	if len(got) != 1 || got[0] != s.addr {
		s.fatalf(t, "with --admin-listen \"\" the process listens on %v, want only Flight's %s", got, s.addr)
	}
}

// TestAdminAccess: who may read /metrics and /debug/pprof/, by the
// flags: pprof only with --pprof; with a token every path needs it
// unless --metrics-open, which opens /metrics alone; with mTLS every
// path needs a client certificate, /metrics alone not with
// --metrics-open.
func TestAdminAccess(t *testing.T) {
	bin := buildServer(t)
	const token = "0123456789abcdef-admin"
	tokenFile := writeFile(t, "token", token+"\n")
	p := newPKI(t)
	mtls := []string{"--tls-cert", p.serverCert, "--tls-key", p.serverKey, "--tls-client-ca", p.caCert}

	// A request: with the token or not, with a client certificate or
	// not (over TLS only).
	type req struct {
		path        string
		token, cert bool
	}
	for _, tc := range []struct {
		name  string
		args  []string
		https bool
		want  map[req]int // status; 0: the TLS handshake fails
	}{
		{"defaults", nil, false, map[req]int{
			{"/metrics", false, false}: 200, {"/debug/pprof/", false, false}: 404}},
		{"pprof", []string{"--pprof"}, false, map[req]int{
			{"/metrics", false, false}: 200, {"/debug/pprof/", false, false}: 200}},
		{"token", []string{"--pprof", "--auth-token-file", tokenFile}, false, map[req]int{
			{"/metrics", false, false}: 401, {"/metrics", true, false}: 200,
			{"/debug/pprof/", false, false}: 401, {"/debug/pprof/", true, false}: 200}},
		{"token, metrics open", []string{"--pprof", "--auth-token-file", tokenFile, "--metrics-open"}, false, map[req]int{
			{"/metrics", false, false}:      200,
			{"/debug/pprof/", false, false}: 401, {"/debug/pprof/", true, false}: 200}},
		{"mTLS", append([]string{"--pprof"}, mtls...), true, map[req]int{
			{"/metrics", false, false}: 0, {"/metrics", false, true}: 200, {"/debug/pprof/", false, true}: 200}},
		{"mTLS, metrics open", append([]string{"--pprof", "--metrics-open"}, mtls...), true, map[req]int{
			{"/metrics", false, false}: 200, {"/metrics", false, true}: 200,
			{"/debug/pprof/", false, false}: 403, {"/debug/pprof/", false, true}: 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			admin := flighttest.FreeAddr(t)
			s := spawn(t, bin, nil, append(liveArgs(t, "--admin-listen", admin), tc.args...)...)
			if !s.waitServing(t) {
				s.fatalf(t, "did not serve: %v", s.waitErr)
			}
			scheme := "http"
			if tc.https {
				scheme = "https"
				// Plaintext to a TLS admin port is never served.
				if code, err := get(t, "http://"+admin+"/metrics", "", nil); err == nil && code == 200 {
					s.fatalf(t, "plaintext /metrics on a TLS admin port: 200")
				}
			}
			var reqs []req
			for r := range tc.want {
				reqs = append(reqs, r)
			}
			sort.Slice(reqs, func(i, j int) bool { return fmt.Sprint(reqs[i]) < fmt.Sprint(reqs[j]) })
			for _, r := range reqs {
				tok := ""
				if r.token {
					tok = token
				}
				var tc2 *tls.Config
				if tc.https {
					tc2 = p.clientTLS(r.cert)
				}
				code, err := waitGet(t, scheme+"://"+admin+r.path, tok, tc2)
				if want := tc.want[r]; code != want {
					s.fatalf(t, "%+v: status %d (%v), want %d", r, code, err, want)
				}
			}
		})
	}
}

// get requests url with the bearer token when given; a failed request
// (a refused handshake) is status 0 and its error.
func get(t *testing.T, url, token string, tc *tls.Config) (int, error) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	defer c.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// waitGet is get, retried while the admin port is not yet listening
// (it opens beside Flight's).
func waitGet(t *testing.T, url, token string, tc *tls.Config) (int, error) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		code, err := get(t, url, token, tc)
		if err == nil || !strings.Contains(err.Error(), "connection refused") || time.Now().After(deadline) {
			return code, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listening lists the TCP addresses pid listens on: its socket file
// descriptors matched with /proc/net/tcp{,6}'s LISTEN entries.
func listening(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
				continue
			}
			out = append(out, procAddr(t, f[1]))
		}
	}
	sort.Strings(out)
	return out
}

// procAddr reads /proc/net/tcp's hex address: the IP in host byte order
// 32-bit words, then the port.
func procAddr(t *testing.T, s string) string {
	t.Helper()
	hexIP, hexPort, _ := strings.Cut(s, ":")
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		t.Fatal(err)
	}
	ip := make(net.IP, len(hexIP)/2)
	for i := 0; i < len(ip); i += 4 {
		w, err := strconv.ParseUint(hexIP[2*i:2*i+8], 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		ip[i], ip[i+1], ip[i+2], ip[i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10))
}
