// Command cassandra-harness starts, drives and stops a local Apache
// Cassandra 5.0 node, or a cluster of nodes on 127.0.0.1, .2, … (see
// internal/testkit/cassandratest).
//
//	cassandra-harness run [-mode oa] [-cluster 3] -- CMD ARGS...   node (and cluster) around one command (make test)
//	cassandra-harness start [-mode oa] -dir DIR       start and leave running
//	  [-auth [-role R -role-password P]]              PasswordAuthenticator (superuser cassandra/cassandra)
//	  [-client-tls [-require-client-auth]]            TLS only on CQL, certificates in DIR/tls
//	  [-cql-port N]                                   a chosen CQL port
//	cassandra-harness start -cluster 3 -dir DIR       start a cluster and leave it running
//	cassandra-harness stop -dir DIR                   a node's or a cluster's directory
//	cassandra-harness nodetool -dir DIR ARGS...       Cassandra's NodeTool
//	cassandra-harness sstabledump -dir DIR DATA.db    Cassandra's SSTableExport
//	cassandra-harness env -dir DIR                    print the connection variables (node or cluster)
//	cassandra-harness modes                           print the storage modes: name, SSTable format, versions
package main
