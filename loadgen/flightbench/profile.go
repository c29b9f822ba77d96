package flightbench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// CPUProfile is a CPU profile of the server taken during one goal's
// measured step, reduced to where the time went: the shape's current
// bottleneck, named in the report.
type CPUProfile struct {
	Seconds int            `json:"seconds"`
	Path    string         `json:"path"`
	Samples string         `json:"samples"`  // pprof's "Total samples = 8.50s (85.0%)"
	TopCum  []ProfileEntry `json:"top_cum"`  // by cumulative share, below the gRPC plumbing
	TopFlat []ProfileEntry `json:"top_flat"` // by own share
	Err     string         `json:"error,omitempty"`
}

// ProfileEntry is one function's share of the profile's samples.
type ProfileEntry struct {
	Function string  `json:"function"`
	FlatPct  float64 `json:"flat_pct"`
	CumPct   float64 `json:"cum_pct"`
}

// profileTop is how many functions each list keeps.
const profileTop = 5

// fetchProfile asks the server's admin endpoint for a CPU profile of the
// next seconds and writes it to path.
func fetchProfile(ctx context.Context, adminAddr string, seconds int, path string) error {
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", adminAddr, seconds)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("fetch cpu profile: %w", err)
	}
	c := &http.Client{Timeout: time.Duration(seconds)*time.Second + 30*time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("fetch cpu profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("fetch cpu profile: %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("save cpu profile: %w", err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("save cpu profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save cpu profile: %w", err)
	}
	return nil
}

// summarizeProfile lists the profile's top functions with `go tool pprof
// -top`, once by cumulative and once by own share. go.mod has no pprof
// parser (github.com/google/pprof), and the go command ships one.
func summarizeProfile(ctx context.Context, goBin, serverBin string, p *CPUProfile) error {
	top := func(args ...string) (string, []ProfileEntry, error) {
		argv := append([]string{"tool", "pprof", "-top", "-nodecount=60"}, args...)
		argv = append(argv, serverBin, p.Path)
		out, err := exec.CommandContext(ctx, goBin, argv...).CombinedOutput()
		if err != nil {
			return "", nil, fmt.Errorf("summarize cpu profile: go %s: %w\n%s", strings.Join(argv, " "), err, out)
		}
		return parsePprofTop(string(out))
	}
	total, cum, err := top("-cum")
	if err != nil {
		return err
	}
	_, flat, err := top()
	if err != nil {
		return err
	}
	p.Samples = total
	for _, e := range cum {
		if len(p.TopCum) < profileTop && !plumbing(e.Function) {
			p.TopCum = append(p.TopCum, e)
		}
	}
	p.TopFlat = flat[:min(profileTop, len(flat))]
	return nil
}

// plumbing reports frames that sit above every request's work: goroutine
// roots, gRPC's dispatch, the generated Flight handlers and interceptors.
// Their cumulative share says how busy the server was, not where its time
// went, so the cumulative list starts below them (at the RPC methods).
func plumbing(fn string) bool {
	switch fn {
	case "runtime.goexit", "runtime.main", "runtime.mstart", "runtime.mstart0", "runtime.mstart1", "runtime.systemstack", "runtime.mcall":
		return true
	}
	return strings.HasPrefix(fn, "google.golang.org/grpc.(*Server).") ||
		strings.HasPrefix(fn, "google.golang.org/grpc/internal/transport.NewServerTransport.") ||
		strings.Contains(fn, "._FlightService_") ||
		strings.Contains(fn, "Interceptor")
}

// parsePprofTop reads the text of `go tool pprof -top`:
//
//	Duration: 10s, Total samples = 8.50s (85.00%)
//	...
//	      flat  flat%   sum%        cum   cum%
//	     1.20s 14.12% 14.12%      6.10s 71.76%  pkg.Func
//
// and returns the samples line's figures and the rows in their order.
func parsePprofTop(out string) (samples string, entries []ProfileEntry, err error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	header := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if _, s, ok := strings.Cut(line, "Total samples = "); ok {
			samples = s
			continue
		}
		if strings.HasPrefix(line, "flat ") && strings.Contains(line, "cum%") {
			header = true
			continue
		}
		if !header || line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			return "", nil, fmt.Errorf("read pprof line %q: want 6 fields", line)
		}
		flat, err1 := parsePct(f[1])
		cum, err2 := parsePct(f[4])
		if err1 != nil || err2 != nil {
			return "", nil, fmt.Errorf("read pprof line %q: bad share", line)
		}
		entries = append(entries, ProfileEntry{Function: strings.Join(f[5:], " "), FlatPct: flat, CumPct: cum})
	}
	if !header {
		return "", nil, fmt.Errorf("read pprof output: no table header in %q", firstLines(out, 8))
	}
	return samples, entries, nil
}

func parsePct(s string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
