package cqlconn

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// session opens one session to the node: the one place the server's
// driver configuration is built. It reads the credentials first (a file
// that cannot be read fails the attempt before a dial, naming it), and
// the TLS configuration (the CA bundle) for this session.
func (c *Config) session() (*gocql.Session, error) {
	if _, _, err := c.credentials(); err != nil {
		return nil, err
	}
	cc := gocql.NewCluster(c.host)
	cc.Port = c.port
	cc.Consistency = gocql.One
	cc.Timeout = c.Timeout
	cc.ConnectTimeout = c.ConnectTimeout
	// One node only: the schema is the same on every node, and the
	// server must not send load elsewhere. DisableInitialHostLookup
	// keeps the driver from reading the peers at connect; the filter
	// keeps it from taking one up later, when an event announces it (a
	// node that joins, or comes back at a new address) and the driver
	// refreshes its ring: it would then send queries there, and a
	// system.local answered by another node gives the server that
	// node's host ID and view of the ring for its own.
	cc.DisableInitialHostLookup = true
	ips, err := c.nodeIPs()
	if err != nil {
		return nil, &attemptError{err: fmt.Errorf("connect to cassandra %s: %w", c.Addr, err)}
	}
	cc.HostFilter = onlyNode(ips)
	cc.Authenticator = authenticator{c}
	d := dialer{timeout: c.ConnectTimeout}
	if c.TLS != nil {
		var err error
		if d.tls, err = c.TLS.load(); err != nil {
			return nil, err
		}
	}
	cc.HostDialer = d
	obs := &observer{}
	cc.ConnectObserver = obs
	if c.Listen != nil {
		c.Listen(cc)
	}
	s, err := cc.CreateSession()
	if err != nil {
		return nil, &attemptError{err: fmt.Errorf("connect to cassandra %s: %w", c.Addr, err), observed: obs.err()}
	}
	return s, nil
}

// nodeIPs are the addresses of the configured node: its IP, or what its
// name resolves to now (within ConnectTimeout), as the driver resolves
// it for this session.
func (c *Config) nodeIPs() ([]net.IP, error) {
	if ip := net.ParseIP(c.host); ip != nil {
		return []net.IP{ip}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.ConnectTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", c.host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", c.host, err)
	}
	return ips, nil
}

// onlyNode accepts the hosts at one of ips: the node itself, whatever
// else the driver hears of.
func onlyNode(ips []net.IP) gocql.HostFilter {
	return gocql.HostFilterFunc(func(h *gocql.HostInfo) bool {
		for _, ip := range ips {
			if h.ConnectAddress().Equal(ip) {
				return true
			}
		}
		return false
	})
}

// dialer opens a connection to the node, over TLS when tls is set,
// within timeout: the driver's own bounds the dial but not the TLS
// handshake, which a port that accepts and never answers would hold for
// ever, and the attempt with it.
type dialer struct {
	tls     *tls.Config
	timeout time.Duration
}

func (d dialer) DialHost(ctx context.Context, host *gocql.HostInfo) (*gocql.DialedHost, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", host.ConnectAddressAndPort())
	if err != nil {
		return nil, err
	}
	// NB: WrapTLS verifies the node's certificate for the config's
	// ServerName, else for the host dialled, and is plain TCP without a
	// config.
	return gocql.WrapTLS(ctx, conn, host.HostnameAndPort(), d.tls)
}

// authenticator answers the node's AUTHENTICATE with the credentials
// as of that moment (Config.credentials), so that every connection the
// driver opens, its own reconnections included, uses the current
// Secret. It is set whether credentials are configured or not: a node
// that asks for them when none are is a clear error, not the driver's.
type authenticator struct{ c *Config }

func (a authenticator) Challenge(req []byte) ([]byte, gocql.Authenticator, error) {
	user, password, err := a.c.credentials()
	if err != nil {
		return nil, nil, err
	}
	if user == "" {
		return nil, nil, &noCredentialsError{class: string(req)}
	}
	return gocql.PasswordAuthenticator{Username: user, Password: password}.Challenge(req)
}

func (authenticator) Success([]byte) error { return nil }

// noCredentialsError is a node that asks for credentials when none are
// configured.
type noCredentialsError struct{ class string }

func (e *noCredentialsError) Error() string {
	return fmt.Sprintf("cassandra requires authentication (%s) and no CQL user is configured", e.class)
}
