package reconcile_test

import (
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestMain stops the Cassandra node the random differential test started
// when no shared node was given (go test run directly, not via make test).
func TestMain(m *testing.M) { os.Exit(cassandratest.RunMain(m)) }
