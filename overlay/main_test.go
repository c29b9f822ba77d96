package overlay_test

import (
	"os"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

func TestMain(m *testing.M) { os.Exit(cassandratest.RunMain(m)) }
