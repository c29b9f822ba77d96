package flightserver

import (
	"github.com/sstable-flight/sstable-flight/flightserver/request"
)

// StorageOps is how many operations the server's storage guard started:
// tests check that work in memory does not go through it.
func StorageOps(s *Server) int64 { return s.io.Stats().Started }

// SealTicket signs a ticket with the server's key, whatever it holds:
// tests make tickets the planner would not, to see DoGet refuse them.
func SealTicket(s *Server, t *request.Ticket) []byte {
	b, err := s.svc.keys.Seal(t)
	if err != nil {
		panic(err)
	}
	return b
}

// SweepSnapshots retires the superseded snapshot epochs unused for the
// grace period now, as the janitor does each second: tests that move
// Config.Now past the grace need not wait for it.
func SweepSnapshots(s *Server) { s.svc.tables.Snapshots().Sweep() }
