package cqlconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Why a connection attempt failed: the label of
// sstf_cassandra_connect_failures_total and Status.Reason.
const (
	// ReasonUnreachable: no connection to the node's CQL port (refused,
	// timed out, no route, a name that does not resolve), it closed
	// before the session was up, or no session came within the attempt's
	// bound. The node is down or starting.
	ReasonUnreachable = "unreachable"
	// ReasonTLS: the TLS handshake failed: the node's certificate is not
	// signed by the CA or not for the name verified, the node refused
	// the client certificate or wanted one, TLS to a plaintext port; or
	// a TLS file could no longer be read.
	ReasonTLS = "tls"
	// ReasonAuth: the node refused the user and password, or asked for
	// credentials and none are configured.
	ReasonAuth = "auth"
	// ReasonCredentials: the user or password file could not be read
	// or holds nothing.
	ReasonCredentials = "credentials"
	// ReasonOther: anything else (a protocol error, say); the log line
	// and Status.Err say what.
	ReasonOther = "other"
)

// Reasons lists every reason, in the order metrics export them.
var Reasons = []string{ReasonUnreachable, ReasonTLS, ReasonAuth, ReasonCredentials, ReasonOther}

// reason classifies a failed attempt by the most telling error the
// driver met: the one of the last connection it tried (observed), which
// keeps its type, else the session's, which the driver flattens to text
// (hence the last resort on the text of TLS errors).
func reason(err error) string {
	var (
		fe      *fileError
		noCreds *noCredentialsError
		reqErr  gocql.RequestError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		verify  *tls.CertificateVerificationError
		header  tls.RecordHeaderError
		alert   tls.AlertError
		op      *net.OpError
		dns     *net.DNSError
	)
	switch {
	case errors.As(err, &fe):
		if fe.field == "UserFile" || fe.field == "PasswordFile" {
			return ReasonCredentials
		}
		return ReasonTLS
	case errors.As(err, &noCreds):
		return ReasonAuth
	case errors.As(err, &reqErr) && reqErr.Code() == gocql.ErrCodeCredentials:
		return ReasonAuth
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid), errors.As(err, &verify),
		errors.As(err, &header), errors.As(err, &alert):
		return ReasonTLS
	case errors.As(err, &op) && op.Op == "remote error":
		// An alert from the node (crypto/tls reports one so): it refused
		// our certificate, or wanted one.
		return ReasonTLS
	case errors.As(err, &op), errors.As(err, &dns), errors.Is(err, errNoAnswer), errors.Is(err, gocql.ErrNoConnections),
		errors.Is(err, gocql.ErrNoConnectionsStarted), errors.Is(err, gocql.ErrConnectionClosed):
		return ReasonUnreachable
	case strings.Contains(err.Error(), "tls: "), strings.Contains(err.Error(), "x509: "):
		return ReasonTLS
	}
	return ReasonOther
}

// observer keeps the last error of the connections a session's driver
// opened (gocql.ConnectObserver), which keeps its type where the
// session's own error does not.
type observer struct {
	mu   sync.Mutex
	last error
}

func (o *observer) ObserveConnect(c gocql.ObservedConnect) {
	if c.Err == nil {
		return
	}
	o.mu.Lock()
	o.last = c.Err
	o.mu.Unlock()
}

func (o *observer) err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

// attemptError is a failed attempt: the session's error, and the typed
// one the connections met, which decides the reason.
type attemptError struct {
	err, observed error
}

func (e *attemptError) Error() string {
	// The session's error names the step that failed; the connection's
	// says why, when the session's dropped it.
	msg := e.err.Error()
	if e.observed != nil && !strings.Contains(msg, e.observed.Error()) {
		msg += ": " + e.observed.Error()
	}
	return msg
}

func (e *attemptError) Unwrap() []error {
	if e.observed == nil {
		return []error{e.err}
	}
	return []error{e.observed, e.err}
}
