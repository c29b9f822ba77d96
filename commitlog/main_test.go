package commitlog_test

import (
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestMain stops the Cassandra node TestLiveSegments started when the
// package runs alone.
func TestMain(m *testing.M) { os.Exit(cassandratest.RunMain(m)) }
