package flightserver_test

import (
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestMain stops the Cassandra node the live test started (when no shared
// node was given), then fails the package if a test left a goroutine
// behind: every server, stream, client and session must stop completely.
func TestMain(m *testing.M) { os.Exit(cassandratest.RunMainNoLeaks(m)) }
