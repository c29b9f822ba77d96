package grafana

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// loadTable is the corpus table the load reads: a bigint key, rows
// enough for a scan to hold its stream slot a while.
const loadTable = "many"

// load drives a server with what the dashboard shows until stopped:
// scans (GetFlightInfo and the DoGets of its endpoints), keyed reads of
// real keys (the key and chunk caches), and requests that fail (an
// unknown table, a malformed command). With the servers' tight limits
// (serverArgs) the concurrent workers also shed and are refused.
type load struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	codes  map[string]int // outcomes by gRPC code
}

// startLoad starts the workers on s; the test's end stops them.
func startLoad(t *testing.T, s *server, keys []int64) *load {
	t.Helper()
	c, err := flight.NewClientWithMiddleware(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial %s: %v", s, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{cancel: cancel, codes: map[string]int{}}
	t.Cleanup(func() {
		l.stop()
		c.Close()
	})
	cmd := func(fields string) []byte {
		return []byte(`{"version":1,"keyspace":"corpus","table":"` + loadTable + `",` + fields + `}`)
	}
	scan := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd(`"splits":2`)}
	workers := []func(context.Context, *rand.Rand) error{
		func(ctx context.Context, _ *rand.Rand) error { return scanOnce(ctx, c, scan) },
		func(ctx context.Context, _ *rand.Rand) error { return scanOnce(ctx, c, scan) },
		func(ctx context.Context, _ *rand.Rand) error { return scanOnce(ctx, c, scan) },
		func(ctx context.Context, r *rand.Rand) error {
			return flighttest.DrainDoGet(ctx, c, cmd(fmt.Sprintf(`"keys":[{"id":%d}]`, keys[r.IntN(len(keys))])))
		},
		func(ctx context.Context, r *rand.Rand) error {
			return flighttest.DrainDoGet(ctx, c, cmd(fmt.Sprintf(`"keys":[{"id":%d}]`, keys[r.IntN(len(keys))])))
		},
		func(ctx context.Context, r *rand.Rand) error {
			if r.IntN(2) == 0 {
				return flighttest.DrainDoGet(ctx, c, []byte(`{"version":1,"keyspace":"corpus","table":"no_such_table"}`))
			}
			_, err := c.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"version":1,`)})
			return err
		},
	}
	for i, w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 18))
			for ctx.Err() == nil {
				rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
				err := w(rctx, r)
				rcancel()
				if ctx.Err() == nil {
					l.count(status.Code(err).String())
				}
				// A pause, so that the load shares the machine's cores.
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return l
}

// scanOnce plans a scan and reads every endpoint of it.
func scanOnce(ctx context.Context, c flight.Client, desc *flight.FlightDescriptor) error {
	info, err := c.GetFlightInfo(ctx, desc)
	if err != nil {
		return err
	}
	for _, ep := range info.GetEndpoint() {
		if err := flighttest.DrainDoGet(ctx, c, ep.GetTicket().GetTicket()); err != nil {
			return err
		}
	}
	return nil
}

func (l *load) count(code string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.codes[code]++
}

// stop ends the workers and waits for them (idempotent).
func (l *load) stop() {
	l.cancel()
	l.wg.Wait()
}

// outcomes is a copy of the outcomes so far.
func (l *load) outcomes() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.codes {
		out[k] = v
	}
	return out
}

// corpusKeys are the partition keys of the load table, from the
// corpus' expected.json.
func corpusKeys(t *testing.T) []int64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpus, "corpus", loadTable+"-*", "expected.json"))
	if len(files) != 1 {
		t.Fatalf("expected.json of corpus.%s: %v", loadTable, files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Rows []struct {
			Values struct {
				ID json.Number `json:"id"`
			} `json:"values"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatalf("decode %s: %v", files[0], err)
	}
	var keys []int64
	for _, r := range exp.Rows {
		if id, err := r.Values.ID.Int64(); err == nil {
			keys = append(keys, id)
		}
	}
	if len(keys) == 0 {
		t.Fatalf("%s: no keys", files[0])
	}
	return keys
}
