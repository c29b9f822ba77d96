package flightserver

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver/cqlconn"
	"github.com/sstable-flight/sstable-flight/flightserver/request"
	"github.com/sstable-flight/sstable-flight/flightserver/ring"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/flightserver/transport"
	"github.com/sstable-flight/sstable-flight/internal/iostall"
	"github.com/sstable-flight/sstable-flight/internal/safefile"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// toStatus maps an error to its gRPC status: the client's mistakes and
// unknown names are told apart from the server's failures, a corrupt or
// incomplete SSTable is DATA_LOSS naming the file (and for corruption the
// component and offset), a file that is not a regular file or is far
// larger than it may be (a schema.cql, a txn log) is FAILED_PRECONDITION
// naming it, and storage that does not answer is UNAVAILABLE. The
// messages name files as the error does; observe then rewrites the
// server's paths out of them (scrubber).
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var corrupt *sstable.CorruptionError
	switch {
	case errors.Is(err, request.ErrInvalid):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, tables.ErrNotFound), errors.Is(err, snapshot.ErrNoTable):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, tables.ErrSystemKeyspace):
		return status.Error(codes.PermissionDenied, err.Error())
	case errors.Is(err, snapshot.ErrEpochGone):
		// The ticket's snapshot was retired: plan the query again.
		return status.Error(codes.Aborted, err.Error())
	case errors.Is(err, snapshot.ErrClosed):
		return status.Error(codes.Unavailable, err.Error())
	case errors.Is(err, ring.ErrNoRing), errors.Is(err, cqlconn.ErrNotConnected):
		return status.Error(codes.Unavailable, err.Error())
	case errors.As(err, new(ring.PlacementError)):
		// A keyspace the ring cannot place: created since it was read
		// and not there yet, or of a replication not supported.
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, ring.ErrNotOwned):
		// The ring moved since the plan: plan the query again.
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, transport.ErrShed):
		return status.Error(codes.Unavailable, err.Error())
	case errors.Is(err, iostall.ErrStalled), errors.Is(err, iostall.ErrClosed):
		// Storage did not answer: another replica, or this one later,
		// may.
		return status.Error(codes.Unavailable, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.Is(err, sidecar.ErrUnavailable):
		// Sidecar or its node failed (a snapshot Cassandra could not
		// take: its message names the file): later, or another replica,
		// may serve.
		return status.Error(codes.Unavailable, err.Error())
	case errors.As(err, &corrupt), errors.Is(err, snapshot.ErrMissingComponent):
		return status.Error(codes.DataLoss, err.Error())
	case errors.Is(err, snapshot.ErrNotRegular), errors.Is(err, safefile.ErrNotRegular), errors.Is(err, safefile.ErrTooLarge):
		// The bytes may be fine, but not where a file should be: the
		// operator must put a regular file there.
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
