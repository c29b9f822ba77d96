package transport

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
)

// TestLogLimiter: the first failure of a code is logged, then at most
// one per interval, carrying the count held back; codes are apart.
func TestLogLimiter(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := NewLogLimiter(10*time.Second, func() time.Time { return now })
	step := func(code codes.Code, wantOK bool, wantHeld int) {
		t.Helper()
		if ok, held := l.Allow(code); ok != wantOK || held != wantHeld {
			t.Fatalf("%v at %v: %v, %d held; want %v, %d", code, now.Unix(), ok, held, wantOK, wantHeld)
		}
	}
	step(codes.Unauthenticated, true, 0)
	for range 1000 {
		step(codes.Unauthenticated, false, 0)
	}
	step(codes.Internal, true, 0) // another code is not held by the first
	now = now.Add(9 * time.Second)
	step(codes.Unauthenticated, false, 0)
	now = now.Add(time.Second)
	step(codes.Unauthenticated, true, 1001)
	step(codes.Unauthenticated, false, 0)
	now = now.Add(time.Minute)
	step(codes.Unauthenticated, true, 1)
	step(codes.Internal, true, 0)
}
