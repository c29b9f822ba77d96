// Package cassandra holds the facts of the test Cassandra image that its
// builder (deploy/image, `go run . cassandra`), its entrypoint
// (cmd/cassandra-entrypoint) and its test share: where things are in the
// image, who runs it, the ports, and the configuration files it ships.
//
// The layout is the official image's (docker-library/cassandra):
// CASSANDRA_HOME /opt/cassandra, CASSANDRA_CONF /etc/cassandra, JAVA_HOME
// /opt/java/openjdk, data under /var/lib/cassandra, user cassandra with
// uid and gid 999. The shipped cassandra.yaml differs from the official
// one on purpose: authentication and authorization are on
// (PasswordAuthenticator, CassandraAuthorizer), as the tests of the chart
// need a Cassandra that asks for credentials.
package cassandra
