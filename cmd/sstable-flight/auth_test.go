package main_test

// Issue #15, finding 7: a token source that holds no token must not
// start a server that serves everyone.

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// TestEmptyOrWeakTokenRefused: an empty or whitespace-only
// --auth-token-file, an SSTF_AUTH_TOKEN set but empty, and a token
// shorter than 16 characters each refuse to start, naming their source;
// a good token's surrounding whitespace (echo's newline) is trimmed and
// the token required.
func TestEmptyOrWeakTokenRefused(t *testing.T) {
	bin := buildServer(t)
	for _, tc := range []struct {
		name string
		file *string // --auth-token-file's content
		env  []string
		want []string
	}{
		{"empty file", ptr(""), nil, []string{"--auth-token-file", "no token"}},
		{"whitespace file", ptr(" \n\t \r\n"), nil, []string{"--auth-token-file", "no token"}},
		{"empty env", nil, []string{"SSTF_AUTH_TOKEN="}, []string{"SSTF_AUTH_TOKEN", "no token"}},
		{"whitespace env", nil, []string{"SSTF_AUTH_TOKEN= \t "}, []string{"SSTF_AUTH_TOKEN", "no token"}},
		{"short file", ptr("s3cret\n"), nil, []string{"--auth-token-file", "at least 16"}},
		{"short env", nil, []string{"SSTF_AUTH_TOKEN=s3cret"}, []string{"SSTF_AUTH_TOKEN", "at least 16"}},
		{"file and env", ptr("0123456789abcdef-file\n"), []string{"SSTF_AUTH_TOKEN=0123456789abcdef-env"}, []string{"--auth-token-file", "SSTF_AUTH_TOKEN", "not both"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			if tc.file != nil {
				args = []string{"--auth-token-file", writeFile(t, "token", *tc.file)}
			}
			requireRefused(t, bin, tc.env, tc.want, liveArgs(t, args...)...)
		})
	}

	t.Run("good token trimmed", func(t *testing.T) {
		const token = "0123456789abcdef-token"
		s := spawn(t, bin, nil, liveArgs(t, "--auth-token-file", writeFile(t, "token", "  "+token+"\n"))...)
		if !s.waitServing(t) {
			s.fatalf(t, "refused a good token: %v", s.waitErr)
		}
		c := dial(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := listFlights(ctx, c); status.Code(err) != codes.Unauthenticated {
			s.fatalf(t, "ListFlights without a token: %v, want UNAUTHENTICATED", err)
		}
		if err := listFlights(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token), c); err != nil {
			s.fatalf(t, "ListFlights with the token: %v", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// listFlights lists every flight, returning the first error.
func listFlights(ctx context.Context, c flight.Client) error {
	st, err := c.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		return err
	}
	return flighttest.Drain(st.Recv)
}
