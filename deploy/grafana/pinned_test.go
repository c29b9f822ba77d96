package grafana

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// pinTable is the corpus table whose first SSTable pinFiles deletes.
const pinTable = "wide"

// pinFiles makes s pin bytes, as a compaction under a snapshot does:
// one scan of pinTable cuts an epoch that links its SSTables, then the
// test deletes generation 1's components from the data directory, as
// Cassandra would after compacting it. The epoch stays the table's
// current one (nothing reads the table again), so its links are the
// files' only names and sstf_snapshot_pinned_bytes counts them at the
// next recount (every 5 s).
func pinFiles(t *testing.T, s *server) {
	t.Helper()
	c, err := flight.NewClientWithMiddleware(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial %s: %v", s, err)
	}
	defer c.Close()
	desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD,
		Cmd: []byte(`{"version":1,"keyspace":"corpus","table":"` + pinTable + `","splits":1}`)}
	// The load shares the one stream slot and sheds: retry until a scan
	// goes through.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := scanOnce(ctx, c, desc)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan corpus.%s on %s: %v", pinTable, s, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	files, _ := filepath.Glob(filepath.Join(s.data, "corpus", pinTable+"-*", "oa-1-big-*"))
	if len(files) == 0 {
		t.Fatalf("no generation 1 SSTable of corpus.%s under %s", pinTable, s.data)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatalf("delete %s as a compaction would: %v", f, err)
		}
	}
}
