package trinobench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Client speaks Trino's HTTP client protocol: a statement is POSTed to
// /v1/statement and its result pages are read by following nextUri until
// there is none. It is the protocol the JDBC driver and the CLI use, so a
// query's wall time here is what a user's client sees.
type Client struct {
	Base string // http://host:port
	User string
	HTTP *http.Client
}

// Answer is one query's rows and Trino's own account of it.
type Answer struct {
	QueryID string
	Rows    [][]any
	Wall    time.Duration // from the POST to the last page, as the client saw it
	Stats   QueryStats
	// Info is the finished query's whole QueryInfo, as Trino sent it
	// (the join's dynamic-filter evidence is read from its plan and
	// operator summaries); nil from Rows.
	Info json.RawMessage
}

// QueryStats is what Lane B reads of a finished query's QueryInfo
// (GET /v1/query/{id}): its CPU, the rows and bytes its page sources
// produced and the time they spent producing them.
type QueryStats struct {
	Elapsed        time.Duration `json:"elapsed_ns"`
	CPU            time.Duration `json:"cpu_ns"`
	InputRows      int64         `json:"input_rows"`  // physicalInputPositions: rows the page sources returned
	InputBytes     int64         `json:"input_bytes"` // physicalInputDataSize
	InputReadTime  time.Duration `json:"input_read_ns"`
	ScanCPU        time.Duration `json:"scan_cpu_ns"`  // CPU of the table-scan operators (getOutput of the page source and projection)
	ScanWall       time.Duration `json:"scan_wall_ns"` // their wall time
	Splits         int           `json:"splits"`
	Planning       time.Duration `json:"planning_ns"` // analysisTime + planningTime: where a connector's metadata calls fall
	PeakUserMemory int64         `json:"peak_user_memory"`
}

type statementResponse struct {
	ID      string `json:"id"`
	NextURI string `json:"nextUri"`
	Data    [][]any
	Error   *struct {
		Message   string `json:"message"`
		ErrorName string `json:"errorName"`
	} `json:"error"`
}

// noNodesWait bounds how long Query asks again while Trino answers
// NO_NODES_AVAILABLE: a Trino that lists its catalogs may not yet have
// announced them on its (coordinator's) worker node, and a scan planned in
// that window fails at once, before any row, so asking again is safe.
const noNodesWait = time.Minute

// Query runs sql to completion and then reads its QueryInfo. A query
// Trino refused with NO_NODES_AVAILABLE is asked again for up to
// noNodesWait; its Answer's Wall counts only the attempt that ran.
func (c *Client) Query(ctx context.Context, sql string) (*Answer, error) {
	return c.retry(ctx, sql, true)
}

// Rows runs sql to completion without reading its QueryInfo, as a
// user's client does: the concurrency runs' many keyed lookups would
// otherwise add a QueryInfo request per query to the coordinator's load.
func (c *Client) Rows(ctx context.Context, sql string) (*Answer, error) {
	return c.retry(ctx, sql, false)
}

func (c *Client) retry(ctx context.Context, sql string, info bool) (*Answer, error) {
	deadline := time.Now().Add(noNodesWait)
	for {
		res, err := c.query(ctx, sql, info)
		var refused *noNodesError
		if !errors.As(err, &refused) || time.Now().After(deadline) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("query %q: %w (while Trino had no node: %v)", sql, ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

// noNodesError is Trino's NO_NODES_AVAILABLE, which Query asks again on.
type noNodesError struct{ msg string }

func (e *noNodesError) Error() string { return e.msg }

func (c *Client) query(ctx context.Context, sql string, info bool) (*Answer, error) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base+"/v1/statement", strings.NewReader(sql))
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", sql, err)
	}
	req.Header.Set("X-Trino-User", c.user())
	res := &Answer{}
	for req != nil {
		var sr statementResponse
		if err := c.do(req, &sr); err != nil {
			return nil, fmt.Errorf("query %q: %w", sql, err)
		}
		if sr.Error != nil {
			err := fmt.Errorf("query %q: Trino %s: %s", sql, sr.Error.ErrorName, sr.Error.Message)
			if sr.Error.ErrorName == "NO_NODES_AVAILABLE" {
				return nil, &noNodesError{msg: err.Error()}
			}
			return nil, err
		}
		res.QueryID = sr.ID
		res.Rows = append(res.Rows, sr.Data...)
		req = nil
		if sr.NextURI != "" {
			if req, err = http.NewRequestWithContext(ctx, http.MethodGet, sr.NextURI, nil); err != nil {
				return nil, fmt.Errorf("query %q: %w", sql, err)
			}
			req.Header.Set("X-Trino-User", c.user())
		}
	}
	res.Wall = time.Since(start)
	if !info {
		return res, nil
	}
	if res.Stats, res.Info, err = c.queryStats(ctx, res.QueryID); err != nil {
		return nil, fmt.Errorf("query %q: %w", sql, err)
	}
	return res, nil
}

func (c *Client) user() string {
	if c.User == "" {
		return "lane-b"
	}
	return c.User
}

func (c *Client) do(req *http.Request, v any) error {
	_, err := c.doBody(req, v)
	return err
}

// doBody is do, also returning the response body it decoded.
func (c *Client) doBody(req *http.Request, v any) ([]byte, error) {
	h := c.HTTP
	if h == nil {
		h = http.DefaultClient
	}
	resp, err := h.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", req.URL.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", req.Method, req.URL.Path, resp.StatusCode, firstBytes(body, 300))
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", req.URL.Path, err)
	}
	return body, nil
}

func firstBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// queryInfo is the part of Trino's QueryInfo JSON read here; durations
// and sizes are airlift's strings ("1.50s", "12.3MB").
type queryInfo struct {
	State      string `json:"state"`
	QueryStats struct {
		ElapsedTime            string `json:"elapsedTime"`
		AnalysisTime           string `json:"analysisTime"`
		PlanningTime           string `json:"planningTime"`
		TotalCPUTime           string `json:"totalCpuTime"`
		PhysicalInputPositions int64  `json:"physicalInputPositions"`
		PhysicalInputDataSize  string `json:"physicalInputDataSize"`
		PhysicalInputReadTime  string `json:"physicalInputReadTime"`
		CompletedDrivers       int    `json:"completedDrivers"`
		PeakUserMemory         string `json:"peakUserMemoryReservation"`
		OperatorSummaries      []struct {
			OperatorType string `json:"operatorType"`
			GetOutputCPU string `json:"getOutputCpu"`
			GetOutputW   string `json:"getOutputWall"`
			AddInputCPU  string `json:"addInputCpu"`
			FinishCPU    string `json:"finishCpu"`
			TotalDrivers int    `json:"totalDrivers"`
		} `json:"operatorSummaries"`
	} `json:"queryStats"`
}

// queryStats reads the finished query's QueryInfo. The final statement
// page can come a moment before the info records the query as done, so
// it waits (briefly) for a final state.
func (c *Client) queryStats(ctx context.Context, id string) (QueryStats, json.RawMessage, error) {
	var qs QueryStats
	deadline := time.Now().Add(10 * time.Second)
	var qi queryInfo
	var body []byte
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/v1/query/"+id, nil)
		if err != nil {
			return qs, nil, err
		}
		req.Header.Set("X-Trino-User", c.user())
		qi = queryInfo{}
		if body, err = c.doBody(req, &qi); err != nil {
			return qs, nil, fmt.Errorf("read query info %s: %w", id, err)
		}
		if qi.State == "FINISHED" || qi.State == "FAILED" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := qi.QueryStats
	var errs []error
	dur := func(v string) time.Duration {
		d, err := ParseDuration(v)
		if err != nil {
			errs = append(errs, err)
		}
		return d
	}
	size := func(v string) int64 {
		n, err := ParseDataSize(v)
		if err != nil {
			errs = append(errs, err)
		}
		return n
	}
	qs.Elapsed = dur(s.ElapsedTime)
	qs.CPU = dur(s.TotalCPUTime)
	qs.Planning = dur(s.AnalysisTime) + dur(s.PlanningTime)
	qs.InputRows = s.PhysicalInputPositions
	qs.InputBytes = size(s.PhysicalInputDataSize)
	qs.InputReadTime = dur(s.PhysicalInputReadTime)
	qs.PeakUserMemory = size(s.PeakUserMemory)
	for _, op := range s.OperatorSummaries {
		if op.OperatorType != "TableScanOperator" && op.OperatorType != "ScanFilterAndProjectOperator" {
			continue
		}
		qs.ScanCPU += dur(op.GetOutputCPU) + dur(op.AddInputCPU) + dur(op.FinishCPU)
		qs.ScanWall += dur(op.GetOutputW)
		qs.Splits += op.TotalDrivers
	}
	if len(errs) > 0 {
		return qs, nil, fmt.Errorf("read query info %s: %w", id, errs[0])
	}
	return qs, body, nil
}

// ParseDuration reads airlift's Duration text: a decimal and one of the
// units ns, us, ms, s, m, h, d.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("parse duration %q: no number and unit", s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("parse duration %q: %w", s, err)
	}
	units := map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}
	u, ok := units[s[i:]]
	if !ok {
		return 0, fmt.Errorf("parse duration %q: unknown unit %q", s, s[i:])
	}
	return time.Duration(v * u), nil
}

// ParseDataSize reads airlift's DataSize text: a decimal and one of the
// units B, kB, MB, GB, TB, PB (powers of 1024, as airlift means them).
func ParseDataSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("parse data size %q: no number and unit", s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, fmt.Errorf("parse data size %q: %w", s, err)
	}
	units := map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "PB": 1 << 50}
	u, ok := units[s[i:]]
	if !ok {
		return 0, fmt.Errorf("parse data size %q: unknown unit %q", s, s[i:])
	}
	return int64(v * u), nil
}
