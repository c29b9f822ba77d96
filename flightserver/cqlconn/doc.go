// Package cqlconn is the server's one connection to its local Cassandra
// node over CQL: every session the server uses (the schema catalog, the
// ring's discovery) is the one it holds, built in one place (session)
// with the operator's credentials and TLS.
//
// The connection never stops the server. Conn connects in the
// background, retrying with bounded exponential backoff and jitter while
// the node is not up (a pod's Cassandra takes tens of seconds to start),
// probes the session it has and, when it is lost, closes it and
// connects again. Users ask for the session of the moment (Session),
// which is an error wrapping ErrNotConnected while there is none; they
// keep what they last read from it (schemas, ring) meanwhile. Status
// says whether it is up, since when, and why not, for metrics and the
// node-info action; each change of state is logged once.
//
// The user and password are read from their files at every connection
// the driver opens (a rotated Kubernetes Secret takes effect without a
// restart); the CA bundle at every session, the client certificate and
// key at every TLS handshake.
package cqlconn
