package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Replication is a keyspace's replication strategy: how Cassandra picks
// the nodes that hold each token range. The implementations are
// SimpleStrategy, NetworkTopologyStrategy, LocalStrategy and
// EverywhereStrategy; Replicas applies one to a Ring.
type Replication interface {
	fmt.Stringer
	// place computes the replicas of every range of r.
	place(r *Ring) (ReplicaMap, error)
}

// SimpleStrategy places a range on the owner of its end token and the
// next RF-1 distinct nodes clockwise, ignoring data centres and racks
// (Cassandra's SimpleStrategy.calculateNaturalReplicas). With fewer nodes
// than RF, every node is a replica.
type SimpleStrategy struct {
	RF int
}

func (s SimpleStrategy) String() string { return fmt.Sprintf("SimpleStrategy{RF: %d}", s.RF) }

// NetworkTopologyStrategy places DCs[dc] replicas in each data centre,
// on distinct racks while racks last (see nts.go for the walk, exactly
// Cassandra's NetworkTopologyStrategy.calculateNaturalReplicas). A DC
// with fewer nodes than its factor gets every node it has; a DC no node
// is in is ignored.
type NetworkTopologyStrategy struct {
	DCs map[string]int
}

func (s NetworkTopologyStrategy) String() string {
	var b strings.Builder
	b.WriteString("NetworkTopologyStrategy{")
	for i, dc := range slices.Sorted(maps.Keys(s.DCs)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %d", dc, s.DCs[dc])
	}
	b.WriteString("}")
	return b.String()
}

// LocalStrategy is the strategy of node-local keyspaces (system,
// system_schema): each node holds its own copy of the whole ring and
// nothing is replicated. Its one replica is the ring's local node.
type LocalStrategy struct{}

func (LocalStrategy) String() string { return "LocalStrategy" }

// EverywhereStrategy places every range on every node, in ring order from
// the owner of the range's end token. Apache Cassandra does not ship it
// (DataStax Enterprise does, for its own system keyspaces); a keyspace
// that names it came from such a cluster.
type EverywhereStrategy struct{}

func (EverywhereStrategy) String() string { return "EverywhereStrategy" }

// Cassandra's class names. CREATE KEYSPACE accepts the short names, and
// system_schema.keyspaces stores the full ones.
const (
	classPrefix     = "org.apache.cassandra.locator."
	classSimple     = "SimpleStrategy"
	classNTS        = "NetworkTopologyStrategy"
	classLocal      = "LocalStrategy"
	classEverywhere = "EverywhereStrategy"
)

// ParseReplication reads the replication map of system_schema.keyspaces
// (or of a CREATE KEYSPACE): the strategy's class and its options.
// Replication factors are as Cassandra writes them, "N" or "N/T" (T of
// the N transient); transient replicas hold no full copy of their data,
// so a factor with T > 0 is refused rather than read as N full copies.
func ParseReplication(options map[string]string) (Replication, error) {
	class, ok := options["class"]
	if !ok {
		return nil, errors.New("parse replication: no class")
	}
	switch strings.TrimPrefix(class, classPrefix) {
	case classSimple:
		v, ok := options["replication_factor"]
		if !ok {
			return nil, fmt.Errorf("parse replication: %s without replication_factor", class)
		}
		rf, err := parseFactor(v)
		if err != nil {
			return nil, fmt.Errorf("parse replication: %s replication_factor: %w", class, err)
		}
		return SimpleStrategy{RF: rf}, nil
	case classNTS:
		dcs := map[string]int{}
		for k, v := range options {
			if k == "class" {
				continue
			}
			// Cassandra expands replication_factor into one entry per
			// data centre when the keyspace is created or altered, so a
			// stored map never has it.
			if strings.EqualFold(k, "replication_factor") {
				return nil, fmt.Errorf("parse replication: %s with replication_factor, which Cassandra expands into data centres", class)
			}
			rf, err := parseFactor(v)
			if err != nil {
				return nil, fmt.Errorf("parse replication: %s data centre %q: %w", class, k, err)
			}
			dcs[k] = rf
		}
		return NetworkTopologyStrategy{DCs: dcs}, nil
	case classLocal:
		return LocalStrategy{}, nil
	case classEverywhere:
		return EverywhereStrategy{}, nil
	}
	return nil, fmt.Errorf("parse replication: unknown strategy class %q", class)
}

// parseFactor reads a replication factor, "N" or "N/T" as Cassandra's
// ReplicationFactor.fromString does.
func parseFactor(s string) (int, error) {
	all, trans, hasTrans := strings.Cut(s, "/")
	n, err := strconv.Atoi(all)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("factor %q is not a replica count", s)
	}
	if hasTrans {
		t, err := strconv.Atoi(trans)
		if err != nil || t < 0 || t > n {
			return 0, fmt.Errorf("factor %q has no valid transient count", s)
		}
		if t > 0 {
			return 0, fmt.Errorf("factor %q has transient replicas, which hold no full copy: not supported", s)
		}
	}
	return n, nil
}
