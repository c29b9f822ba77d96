package main_test

// Issue #15, finding 8: TLS options that cannot give what they promise
// refuse to start, before anything is written, rather than serve
// plaintext or unchecked clients.

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// TestBadTLSRefused: a client CA without a certificate, a certificate
// without its key (and the reverse), files that cannot be read, a key
// that is not the certificate's, a CA file without a certificate or
// with a private key in it: each refuses to start naming its flag, and
// leaves the snapshot directory uncreated.
func TestBadTLSRefused(t *testing.T) {
	bin := buildServer(t)
	p := newPKI(t)
	junk := p.write(t, "junk.pem", []byte("not PEM at all\n"))
	keyAsCA := p.write(t, "key-as-ca.pem", must(os.ReadFile(p.serverKey)))
	caAndKey := p.write(t, "ca-and-key.pem", append(must(os.ReadFile(p.caCert)), must(os.ReadFile(p.serverKey))...))
	missing := filepath.Join(p.dir, "missing.pem")
	pair := []string{"--tls-cert", p.serverCert, "--tls-key", p.serverKey}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"client CA alone", []string{"--tls-client-ca", p.caCert}, []string{"--tls-cert", "required with a client CA"}},
		{"cert alone", []string{"--tls-cert", p.serverCert}, []string{"--tls-key", "required"}},
		{"key alone", []string{"--tls-key", p.serverKey}, []string{"--tls-cert", "required"}},
		{"cert missing", []string{"--tls-cert", missing, "--tls-key", p.serverKey}, []string{"--tls-cert", "no such file"}},
		{"cert a directory", []string{"--tls-cert", p.dir, "--tls-key", p.serverKey}, []string{"--tls-cert", "is a directory"}},
		{"cert not PEM", []string{"--tls-cert", junk, "--tls-key", p.serverKey}, []string{"--tls-cert", "no certificate"}},
		{"key missing", []string{"--tls-cert", p.serverCert, "--tls-key", missing}, []string{"--tls-key", "no such file"}},
		{"key not the cert's", []string{"--tls-cert", p.serverCert, "--tls-key", p.otherKey}, []string{"--tls-key", "not the private key of the certificate"}},
		{"client CA missing", append(pair, "--tls-client-ca", missing), []string{"--tls-client-ca", "no such file"}},
		{"client CA not PEM", append(pair, "--tls-client-ca", junk), []string{"--tls-client-ca", "no certificate"}},
		{"client CA a key", append(pair, "--tls-client-ca", keyAsCA), []string{"--tls-client-ca", "PRIVATE KEY"}},
		{"client CA with a key", append(pair, "--tls-client-ca", caAndKey), []string{"--tls-client-ca", "PRIVATE KEY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			data, snaps := filepath.Join(tmp, "data"), filepath.Join(tmp, "snaps")
			if err := os.Mkdir(data, 0o755); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"--data-dir", data, "--snapshot-dir", snaps, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}, tc.args...)
			requireRefused(t, bin, nil, tc.want, args...)
			if _, err := os.Stat(snaps); !os.IsNotExist(err) {
				t.Errorf("the refused server made its snapshot directory %s (stat: %v): it must refuse before writing anything", snaps, err)
			}
		})
	}

	t.Run("mTLS serves", func(t *testing.T) {
		s := spawn(t, bin, nil, liveArgs(t, append(pair, "--tls-client-ca", p.caCert)...)...)
		if !s.waitServing(t) {
			s.fatalf(t, "refused good TLS options: %v", s.waitErr)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, tc := range []struct {
			name string
			opt  grpc.DialOption
			ok   bool
		}{
			{"plaintext", grpc.WithTransportCredentials(insecure.NewCredentials()), false},
			{"TLS without a client certificate", grpc.WithTransportCredentials(credentials.NewTLS(p.clientTLS(false))), false},
			{"TLS with a client certificate", grpc.WithTransportCredentials(credentials.NewTLS(p.clientTLS(true))), true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c, err := flight.NewClientWithMiddleware(s.addr, nil, nil, tc.opt)
				if err != nil {
					t.Fatal(err)
				}
				err = listFlights(ctx, c)
				c.Close()
				if (err == nil) != tc.ok {
					s.fatalf(t, "%s: ListFlights: %v, want success %v", tc.name, err, tc.ok)
				}
			})
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
