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
	return Drain(stream.Recv)
}

// Each reads a stream with recv, the stream's Recv, to its end and calls
// fn with every message: nil at io.EOF, else the first error.
func Each[T any](recv func() (T, error), fn func(T)) error {
	for {
		m, err := recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(m)
	}
}

// Drain reads a stream to its end and drops what it reads (Each).
func Drain[T any](recv func() (T, error)) error { return Each(recv, func(T) {}) }

// Collect reads a stream to its end and returns what it read (Each).
func Collect[T any](recv func() (T, error)) ([]T, error) {
	var out []T
	err := Each(recv, func(m T) { out = append(out, m) })
	return out, err
}
