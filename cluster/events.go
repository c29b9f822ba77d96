package cluster

import (
	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Changes turns the driver's topology and schema events into one signal
// that the ring or a keyspace's replication may have changed: a node
// added or removed (NEW_NODE, REMOVED_NODE), a keyspace created, altered
// or dropped. A reader of C reads the topology again (Discover): an event
// says only that something changed, and what changed is read, not taken
// from the event. Signals coalesce: however many events arrive while
// nobody reads C, one is pending.
//
// Host UP and DOWN change no placement and are not signalled; a token
// move sends no event the driver passes on, and is found by the periodic
// read.
type Changes struct{ c chan struct{} }

// NewChanges returns a Changes with no signal pending.
func NewChanges() *Changes { return &Changes{c: make(chan struct{}, 1)} }

// C receives a value after one or more changes since the last receive.
func (ch *Changes) C() <-chan struct{} { return ch.c }

// Listen adds ch to cfg's schema and topology listeners, beside any
// already set, before cfg's session is created. The driver sends schema
// events only while it caches keyspace metadata (its default, Full, or
// KeyspaceOnly).
func (ch *Changes) Listen(cfg *gocql.ClusterConfig) {
	md := &cfg.Metadata
	if prev := md.SchemaListener.KeyspaceChangeListener; prev != nil {
		md.SchemaListener.KeyspaceChangeListener = gocql.SchemaListenersMux{Keyspaces: []gocql.KeyspaceChangeListener{prev, ch}}
	} else {
		md.SchemaListener.KeyspaceChangeListener = ch
	}
	if prev := md.HostListener.TopologyChangeListener; prev != nil {
		md.HostListener.TopologyChangeListener = gocql.HostListenersMux{TopologyChangeListeners: []gocql.TopologyChangeListener{prev, ch}}
	} else {
		md.HostListener.TopologyChangeListener = ch
	}
}

// Signal says the ring may have changed for a reason of the caller's:
// the session to the node was (re)established, and whatever happened
// while it was away sent no event.
func (ch *Changes) Signal() { ch.changed() }

func (ch *Changes) changed() {
	select {
	case ch.c <- struct{}{}:
	default: // one is pending already
	}
}

// The driver's listener methods; each only signals.

func (ch *Changes) OnKeyspaceCreated(gocql.OnKeyspaceCreatedEvent) { ch.changed() }
func (ch *Changes) OnKeyspaceUpdated(gocql.OnKeyspaceUpdatedEvent) { ch.changed() }
func (ch *Changes) OnKeyspaceDropped(gocql.OnKeyspaceDroppedEvent) { ch.changed() }
func (ch *Changes) OnNewHost(gocql.NewHostEvent)                   { ch.changed() }
func (ch *Changes) OnRemovedHost(gocql.RemovedHostEvent)           { ch.changed() }
