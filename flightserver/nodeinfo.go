package flightserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// NodeInfo is the node-info action's result: the Cassandra node this
// server serves, as its ring view says (cluster planning, once the ring
// is read), and the server's connection to it (with Config.Cassandra).
type NodeInfo struct {
	HostID    string         `json:"host_id,omitempty"`
	Cassandra *CassandraInfo `json:"cassandra,omitempty"`
}

// CassandraInfo is the state of the connection to the node
// (cqlconn.Status).
type CassandraInfo struct {
	Addr string `json:"addr"`
	Up   bool   `json:"up"`
	// Since is when Up last changed (the server's start while it never
	// was up).
	Since time.Time `json:"since"`
	// Reason and Error, while down, say why the last attempt failed or
	// the session was lost (cqlconn.Reasons).
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// ConnectFailures counts the failed attempts by reason.
	ConnectFailures map[string]int64 `json:"connect_failures"`
}

// nodeInfo answers node-info. The host ID is the ring's: while the
// first ring is being read over an up connection (or one the server does
// not watch) the answer waits for it as a plan does; while the
// connection is down it does not wait, and says so. A server with
// neither a ring nor a connection has nothing to tell.
func (s *service) nodeInfo(ctx context.Context) (NodeInfo, error) {
	var info NodeInfo
	if c := s.cfg.Cassandra; c != nil {
		st := c.Status()
		info.Cassandra = &CassandraInfo{Addr: st.Addr, Up: st.Up, Since: st.Since.UTC(), Reason: st.Reason, ConnectFailures: st.Failures}
		if st.Err != nil {
			info.Cassandra.Error = st.Err.Error()
		}
	}
	if s.ring == nil {
		if info.Cassandra == nil {
			return info, status.Error(codes.FailedPrecondition, "node-info: this server plans no cluster (no ring) and has no --cassandra: it knows no host ID")
		}
		return info, nil
	}
	st := s.ring.Latest()
	if st == nil && (info.Cassandra == nil || info.Cassandra.Up) {
		var err error
		if st, err = s.ring.Get(ctx); err != nil && info.Cassandra == nil {
			return info, err
		}
	}
	if st != nil {
		info.HostID = st.Local().String()
	}
	return info, nil
}

// askNodeInfo asks the server at uri which node it serves; a grpc+tls
// peer is verified against roots (nil: the system's).
func askNodeInfo(ctx context.Context, uri, token string, roots *x509.CertPool) (uuid.UUID, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return uuid.Nil, fmt.Errorf("ask node-info: %w", err)
	}
	creds := insecure.NewCredentials()
	if u.Scheme == "grpc+tls" {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots})
	}
	conn, err := grpc.NewClient(u.Host, grpc.WithTransportCredentials(creds))
	if err != nil {
		return uuid.Nil, fmt.Errorf("ask node-info: dial %s: %w", u.Host, err)
	}
	defer conn.Close()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	stream, err := flight.NewFlightServiceClient(conn).DoAction(ctx, &flight.Action{Type: ActionNodeInfo})
	if err != nil {
		return uuid.Nil, fmt.Errorf("ask node-info: %w", err)
	}
	res, err := stream.Recv()
	if err != nil {
		return uuid.Nil, fmt.Errorf("ask node-info: %w", err)
	}
	var info NodeInfo
	if err := json.Unmarshal(res.GetBody(), &info); err != nil {
		return uuid.Nil, fmt.Errorf("ask node-info: read the answer: %w", err)
	}
	if info.HostID == "" {
		why := "its ring is not read yet"
		if c := info.Cassandra; c != nil && !c.Up {
			why += fmt.Sprintf(" (its cassandra %s is down: %s)", c.Addr, c.Reason)
		}
		return uuid.Nil, fmt.Errorf("ask node-info: the peer knows no host ID: %s", why)
	}
	host, err := uuid.Parse(info.HostID)
	if err != nil {
		return uuid.Nil, fmt.Errorf("ask node-info: host ID %q: %w", info.HostID, err)
	}
	return host, nil
}
