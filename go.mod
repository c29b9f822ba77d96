module github.com/sstable-flight/sstable-flight

go 1.26

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/golang/snappy v1.0.0
	github.com/klauspost/compress v1.20.4
	github.com/pierrec/lz4/v4 v4.1.33
	gopkg.in/inf.v0 v0.9.1
)
