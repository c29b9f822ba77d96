package flightserver_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: every
// server, stream and client must stop completely.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
