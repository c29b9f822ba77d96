package ring

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/token"

	"github.com/sstable-flight/sstable-flight/cluster"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestRingViewFollowsSchemaEvents: on the real cluster, with the
// periodic read ten minutes apart, a keyspace created and then altered
// through CQL is in the ring view within seconds, with its new
// replication: the view reads the ring again on the driver's schema
// events, not only on its timer.
func TestRingViewFollowsSchemaEvents(t *testing.T) {
	c := cassandratest.SharedCluster(t)
	changes := cluster.NewChanges()
	cc := c.Nodes[0].Cluster()
	changes.Listen(cc)
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := &Options{RefreshInterval: 10 * time.Minute, Changes: changes.C(), RefreshTimeout: 10 * time.Second, RingWait: 5 * time.Second, ChangeDebounce: 500 * time.Millisecond,
		Discover: func(ctx context.Context) (*cluster.Topology, error) { return cluster.Discover(ctx, s) }}
	v := NewView(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	v.Start()
	defer v.Close()
	if _, err := v.Get(context.Background()); err != nil {
		t.Fatal(err)
	}

	ddl, err := c.Nodes[1].Session() // DDL through another node: the event still reaches node 1's session
	if err != nil {
		t.Fatal(err)
	}
	defer ddl.Close()
	ks := fmt.Sprintf("clusterc_events%d", time.Now().UnixNano())
	defer cassandratest.Exec(t, ddl, "DROP KEYSPACE IF EXISTS "+ks)
	replicas := func() int {
		m, err := v.cur.Load().Replicas(ks)
		if err != nil {
			return 0
		}
		return len(m[0].Replicas)
	}
	wait := func(what string, want int) {
		t.Helper()
		start := time.Now()
		for replicas() != want {
			if time.Since(start) > 20*time.Second {
				t.Fatalf("%s: the ring view has %d replicas per range after %v, want %d (the periodic read is 10 min away)", what, replicas(), time.Since(start), want)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("%s: in the ring view after %v", what, time.Since(start).Round(time.Millisecond))
	}
	cassandratest.Exec(t, ddl, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2}")
	wait("create at RF 2", 2)
	cassandratest.Exec(t, ddl, "ALTER KEYSPACE "+ks+" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}")
	wait("alter to RF 3", 3)
}

// TestRingViewDebouncesChanges: a burst of change signals costs one read
// after the debounce (and at most one more for signals during it), not
// one read each.
func TestRingViewDebouncesChanges(t *testing.T) {
	ring, err := cluster.NewRing(host(1), []cluster.Node{{HostID: host(1), Tokens: []token.Token{0}}})
	if err != nil {
		t.Fatal(err)
	}
	reads := make(chan struct{}, 100)
	changes := make(chan struct{}, 1)
	cfg := &Options{RefreshInterval: time.Hour, Changes: changes, ChangeDebounce: 100 * time.Millisecond, RefreshTimeout: 10 * time.Second, RingWait: 5 * time.Second,
		Discover: func(ctx context.Context) (*cluster.Topology, error) {
			reads <- struct{}{}
			return &cluster.Topology{Ring: ring}, nil
		}}
	v := NewView(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	v.Start()
	defer v.Close()
	<-reads // the first read
	burst := time.Now()
	for range 50 {
		select {
		case changes <- struct{}{}:
		default:
		}
		time.Sleep(time.Millisecond)
	}
	// On a loaded machine the 50 one-millisecond sleeps can take longer
	// than the debounce, and a signal after a debounce ended rightly
	// costs a read: allow one read per debounce the burst lasted, which
	// is still far fewer than one per signal.
	allowed := 1 + int(time.Since(burst)/cfg.ChangeDebounce)
	select {
	case <-reads:
	case <-time.After(5 * time.Second):
		t.Fatal("no read after a burst of change signals")
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(reads); n > allowed {
		t.Fatalf("a burst of 50 signals cost %d more reads, want at most %d more", n, allowed)
	}
}
