package catalog

import (
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestMain stops the Cassandra node the live tests started when no shared
// node was given (go test run directly, not through make test).
func TestMain(m *testing.M) { os.Exit(cassandratest.RunMain(m)) }
