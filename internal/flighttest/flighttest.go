// Package flighttest holds what the tests of the Flight server (in
// process, flightserver's, and as a child process, cmd/sstable-flight's)
// do to it as a client.
package flighttest

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// DrainDoGet runs a DoGet to its end, reading and dropping every
// message: nil when the stream ends cleanly, else the call's or the
// stream's error (a status error, for a server that refused).
func DrainDoGet(ctx context.Context, c flight.FlightServiceClient, ticket []byte) error {
	stream, err := c.DoGet(ctx, &flight.Ticket{Ticket: ticket})
	if err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
