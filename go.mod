module github.com/sstable-flight/sstable-flight

go 1.26

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	gopkg.in/inf.v0 v0.9.1
)
