package loadgen

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"google.golang.org/grpc/status"
)

// Histogram range: 1 µs to 60 s at 3 significant digits, so a 1.234 ms
// and a 12.34 s latency both keep 0.1 % resolution.
const (
	histMinUS   = 1
	histMaxUS   = 60_000_000
	histSigFigs = 3
)

// Unavailable is the error code counted apart: the server shedding load
// (gRPC UNAVAILABLE, or CQL's unavailable and overloaded errors) is a
// designed answer to overload, not a failure.
const Unavailable = "Unavailable"

// recorder collects one worker's measured ops. Each worker has its own,
// so recording takes no lock (HDR histograms are not safe for concurrent
// use); the step merges them at its end.
type recorder struct {
	hist    *hdrhistogram.Histogram
	ok      int64
	res     Result // of successful ops only: a failed op's partial rows are not throughput
	errs    map[string]int64
	clamped int64     // latencies beyond the histogram's 60 s, recorded as 60 s
	lastEnd time.Time // when the last measured op ended
}

func newRecorder() *recorder {
	return &recorder{hist: hdrhistogram.New(histMinUS, histMaxUS, histSigFigs), errs: map[string]int64{}}
}

// record adds one measured op. Only successful ops enter the latency
// histogram: a shed op's latency is the admission wait, not a read.
func (r *recorder) record(lat time.Duration, res Result, err error, end time.Time) {
	if end.After(r.lastEnd) {
		r.lastEnd = end
	}
	if err != nil {
		r.errs[codeOf(err)]++
		return
	}
	r.ok++
	r.res.add(res)
	us := lat.Microseconds()
	if us < histMinUS {
		us = histMinUS
	}
	if us > histMaxUS {
		us, r.clamped = histMaxUS, r.clamped+1
	}
	// In range by the clamps above, so RecordValue cannot fail.
	_ = r.hist.RecordValue(us)
}

func (r *recorder) merge(o *recorder) {
	r.hist.Merge(o.hist)
	r.ok += o.ok
	r.res.add(o.res)
	for c, n := range o.errs {
		r.errs[c] += n
	}
	r.clamped += o.clamped
	if o.lastEnd.After(r.lastEnd) {
		r.lastEnd = o.lastEnd
	}
}

// codeOf names an op's error: the gRPC code (wrapped statuses included),
// a freshness op's row never returned, a context's end, or a CQL error
// class.
func codeOf(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Code().String()
	}
	switch {
	case errors.Is(err, errNotVisible):
		return "NotVisible"
	case errors.Is(err, context.Canceled):
		return "Canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, gocql.ErrTimeoutNoResponse):
		return "DeadlineExceeded"
	}
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded:
			return Unavailable
		}
		return fmt.Sprintf("cql_%#04x", re.Code())
	}
	return "Unknown"
}
