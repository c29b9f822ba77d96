package trinobench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/sstable-flight/sstable-flight/loadgen"
)

// Lookups is the join's yardstick: the join's keys read one
// at a time straight from sstable-flight (no Trino), each a keyed read
// as flight-loadgen's point shape makes it (GetFlightInfo with the key,
// DoGet of its endpoint), in passes over all the keys. The server's own
// account of each pass is the growth of its sstf_request_seconds sum
// (every RPC's time to the end of its response stream) and of its CPU.
type Lookups struct {
	Keys   int `json:"keys"`
	Passes int `json:"passes"` // recorded passes, after the warm-up ones
	// Per recorded pass, in order.
	ServerMS    []float64 `json:"server_ms"`     // total server time of the pass's RPCs
	ServerCPUMS []float64 `json:"server_cpu_ms"` // the server process's CPU
	ClientMS    []float64 `json:"client_ms"`     // the pass's wall time as the rig saw it
	RPCs        []int64   `json:"rpcs"`          // RPCs the server counted during the pass
	// Medians over the recorded passes.
	ServerP50MS    float64 `json:"server_p50_ms"`
	ServerCPUP50MS float64 `json:"server_cpu_p50_ms"`
	ClientP50MS    float64 `json:"client_p50_ms"`
	// Note says when a pass's RPC count was not the lookups' own (other
	// clients' work in the total).
	Note string `json:"note,omitempty"`
}

// rpcsPerLookup is GetFlightInfo and one DoGet.
const rpcsPerLookup = 2

// lookupTimeout bounds one keyed read.
const lookupTimeout = 30 * time.Second

// serverTotals is the server's cumulative request time, request count
// and CPU, all in seconds but the count.
type serverTotals struct{ seconds, rpcs, cpu float64 }

// Server metrics the lookups read (docs/operations.md).
const (
	metricRequestSum   = "sstf_request_seconds_sum"
	metricRequestCount = "sstf_request_seconds_count"
	metricCPU          = "process_cpu_seconds_total"
)

// DirectLookups reads keys of keyspace.table (partition key column
// keyCol) from the server at addr, warmups passes unrecorded and then
// passes recorded, reading its /metrics at metricsURL around each pass.
func DirectLookups(ctx context.Context, addr, metricsURL, keyspace, table, keyCol string, keys []string, warmups, passes int) (*Lookups, error) {
	cfg := &loadgen.Config{Addr: addr}
	fc, err := loadgen.DialFlight(cfg)
	if err != nil {
		return nil, err
	}
	defer fc.Close()
	locs := loadgen.NewLocations(cfg, fc)
	defer locs.Close()
	read := func(ctx context.Context, key string) (int64, error) {
		cmd, err := json.Marshal(map[string]any{"version": 1, "keyspace": keyspace, "table": table, "keys": []map[string]string{{keyCol: key}}})
		if err != nil {
			return 0, err
		}
		ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
		defer cancel()
		info, err := fc.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd})
		if err != nil {
			return 0, fmt.Errorf("get flight info: %w", err)
		}
		res, err := loadgen.ReadEndpoints(ctx, locs, info.Endpoint, 0)
		return res.Rows, err
	}
	server := func(ctx context.Context) (serverTotals, error) {
		m, err := loadgen.ScrapeMetrics(ctx, metricsURL, metricRequestSum, metricRequestCount, metricCPU)
		if err != nil {
			return serverTotals{}, err
		}
		if _, ok := m[metricRequestSum]; !ok {
			return serverTotals{}, fmt.Errorf("scrape %s: no %s", metricsURL, metricRequestSum)
		}
		return serverTotals{seconds: m[metricRequestSum], rpcs: m[metricRequestCount], cpu: m[metricCPU]}, nil
	}
	return measureLookups(ctx, keys, warmups, passes, read, server)
}

// measureLookups runs the passes: each reads every key once, in order,
// one at a time (so no lookup waits behind another and the server's sum
// is the lookups' own time), and must get exactly one row per key.
func measureLookups(ctx context.Context, keys []string, warmups, passes int,
	read func(context.Context, string) (int64, error), server func(context.Context) (serverTotals, error)) (*Lookups, error) {
	if len(keys) == 0 || passes < 1 {
		return nil, errors.New("keyed lookups: no keys or no passes")
	}
	l := &Lookups{Keys: len(keys), Passes: passes}
	for pass := -warmups; pass < passes; pass++ {
		before, err := server(ctx)
		if err != nil {
			return nil, fmt.Errorf("keyed lookups: %w", err)
		}
		start := time.Now()
		for _, k := range keys {
			rows, err := read(ctx, k)
			if err != nil {
				return nil, fmt.Errorf("keyed lookup of %s: %w", k, err)
			}
			if rows != 1 {
				return nil, fmt.Errorf("keyed lookup of %s: %d rows, want 1", k, rows)
			}
		}
		wall := time.Since(start)
		after, err := server(ctx)
		if err != nil {
			return nil, fmt.Errorf("keyed lookups: %w", err)
		}
		if pass < 0 {
			continue
		}
		rpcs := int64(after.rpcs - before.rpcs)
		l.ServerMS = append(l.ServerMS, (after.seconds-before.seconds)*1e3)
		l.ServerCPUMS = append(l.ServerCPUMS, (after.cpu-before.cpu)*1e3)
		l.ClientMS = append(l.ClientMS, ms(wall))
		l.RPCs = append(l.RPCs, rpcs)
		if want := int64(rpcsPerLookup * len(keys)); rpcs != want && l.Note == "" {
			l.Note = fmt.Sprintf("a pass counted %d RPCs at the server, not the lookups' %d: the total holds other clients' time", rpcs, want)
		}
	}
	l.ServerP50MS, l.ServerCPUP50MS, l.ClientP50MS = median(l.ServerMS), median(l.ServerCPUMS), median(l.ClientMS)
	return l, nil
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
