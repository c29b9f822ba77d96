package flightserver_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/sstable-flight/sstable-flight/internal/cassandratest"
)

// TestMain stops the Cassandra node the live test started (when no shared
// node was given), then fails the package if a test left a goroutine
// behind: every server, stream, client and session must stop completely.
func TestMain(m *testing.M) {
	code := cassandratest.RunMain(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}
