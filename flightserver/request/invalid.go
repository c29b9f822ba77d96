package request

import "errors"

// ErrInvalid marks a request the client got wrong: a command, a ticket
// or names the table refuses (gRPC INVALID_ARGUMENT).
var ErrInvalid = errors.New("invalid request")

type invalidError struct{ err error }

func (e invalidError) Error() string   { return e.err.Error() }
func (e invalidError) Unwrap() []error { return []error{e.err, ErrInvalid} }

// Invalid marks err as the client's mistake (ErrInvalid), its message
// unchanged.
func Invalid(err error) error { return invalidError{err} }
