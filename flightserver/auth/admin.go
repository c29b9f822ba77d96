package auth

import (
	"crypto/tls"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The admin endpoint: /metrics, and /debug/pprof/ when Config.Pprof.
// It is guarded as Flight is: TLS when Flight has it, a client
// certificate when Flight requires one, the bearer token when Flight
// requires it; Config.MetricsOpen exempts /metrics from the last two,
// for Prometheus scrapers that send neither.

// Admin is what the admin endpoint serves and requires: the server's
// Config, resolved (Token, TLS, ClientCerts: a client CA was given).
type Admin struct {
	Token       string
	TLS         *tls.Config
	ClientCerts bool
	MetricsOpen bool
	Pprof       bool
}

// NewAdmin builds the admin HTTP server over the metrics of reg.
func NewAdmin(cfg Admin, reg *prometheus.Registry) *http.Server {
	g := &adminGuard{token: cfg.Token, certs: cfg.ClientCerts}
	mux := http.NewServeMux()
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	if cfg.MetricsOpen {
		mux.Handle("/metrics", metrics)
	} else {
		mux.Handle("/metrics", g.wrap(metrics))
	}
	if cfg.Pprof {
		mux.Handle("/debug/pprof/", g.wrap(http.HandlerFunc(pprof.Index)))
		mux.Handle("/debug/pprof/cmdline", g.wrap(http.HandlerFunc(pprof.Cmdline)))
		mux.Handle("/debug/pprof/profile", g.wrap(http.HandlerFunc(pprof.Profile)))
		mux.Handle("/debug/pprof/symbol", g.wrap(http.HandlerFunc(pprof.Symbol)))
		mux.Handle("/debug/pprof/trace", g.wrap(http.HandlerFunc(pprof.Trace)))
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		if cfg.MetricsOpen && tc.ClientAuth == tls.RequireAndVerifyClientCert {
			// The handshake must admit a scraper without a
			// certificate; every other path checks for a verified one
			// (adminGuard).
			tc.ClientAuth = tls.VerifyClientCertIfGiven
		}
		srv.TLSConfig = tc
	}
	return srv
}

// adminGuard requires what Flight requires of its clients.
type adminGuard struct {
	token string // the bearer token, when one is configured
	certs bool   // a verified client certificate
}

func (g *adminGuard) wrap(h http.Handler) http.Handler {
	if g.token == "" && !g.certs {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.certs && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
			http.Error(w, "a client certificate signed by the server's client CA is required", http.StatusForbidden)
			return
		}
		if g.token != "" && !ValidBearer(r.Header.Values("Authorization"), g.token) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
