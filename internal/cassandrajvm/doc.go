// Package cassandrajvm holds the JVM options Apache Cassandra 5.0 needs
// on JDK 17 wherever this project starts it: the test harness's nodes
// (internal/testkit/cassandratest) and the test image's entrypoint
// (deploy/image/cmd/cassandra-entrypoint). A leaf: the standard library
// only, so the static entrypoint stays small.
package cassandrajvm
