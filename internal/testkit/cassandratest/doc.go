// Package cassandratest starts and drives a real Apache Cassandra 5.0 node for
// tests and for the corpus generator.
//
// Cassandra is the oracle of this project: it writes the SSTables our reader
// must decode, its sstabledump (SSTableExport) is the reference for raw reads,
// and its CQL answers are the reference for reconciled rows. Nothing here
// imitates Cassandra; everything runs Cassandra's own classes.
//
// Maven Central does not serve the 5.0 binary tarball, so Install resolves
// org.apache.cassandra:cassandra-all and its runtime dependencies with Maven
// (cached in ~/.m2, so a second run needs no network) and Start runs
// org.apache.cassandra.service.CassandraDaemon on that classpath with a
// minimal cassandra.yaml written per node, bound to 127.0.0.1 only.
//
// Each node writes one SSTable format, chosen by its Mode (nb, oa, da);
// mode.go is the one list of the modes, with the format, versions and
// cassandra.yaml settings of each, and what to touch to add one.
//
// A node may run as operators run Cassandra (security.go): with
// PasswordAuthenticator (Options.Auth: the default superuser, and a login
// role created once it is up) and with TLS only on its CQL port
// (Options.ClientTLS: client_encryption_options with a CA and
// certificates the harness generates, optionally require_client_auth),
// on a CQL port chosen in advance (Options.CQLPort, FreePort) for a
// client started before its node.
//
// A test run shares one node across packages: the Makefile starts it with
// cmd/cassandra-harness and passes its address in the environment (see Env
// and Shared). A test that needs Cassandra never skips: without a node it
// starts its own, and in CI (CI=true) without one it fails.
package cassandratest
