package loadgen

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// TestWriteHTML: the report is well-formed (every chart parses as XML),
// names each arm's series, lists every step and escapes what it prints.
func TestWriteHTML(t *testing.T) {
	rss := int64(48 << 20)
	rep := &Report{
		Flight: []Step{
			{Arm: "flight", Shape: "point", Keyspace: "ks", Table: "<t>", Concurrency: 1, OpsPerSec: 2500, P50US: 380, P99US: 1100, P999US: 2300, ServerRSSBytes: &rss},
			{Arm: "flight", Shape: "point", Keyspace: "ks", Table: "<t>", Concurrency: 4, OpsPerSec: 7000, P50US: 520, P99US: 1900, P999US: 4100},
		},
		CQL: []Step{
			{Arm: "cql", Shape: "point", Keyspace: "ks", Table: "<t>", Concurrency: 1, OpsPerSec: 700, P50US: 1350, P99US: 3000, P999US: 9000},
			{Arm: "cql", Shape: "point", Keyspace: "ks", Table: "<t>", Concurrency: 4, OpsPerSec: 1900, P50US: 2000, P99US: 5000, P999US: 12000},
		},
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, rep, "point ks.<t>"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<t>") || !strings.Contains(out, "ks.&lt;t&gt;") {
		t.Fatalf("table name not escaped:\n%s", out)
	}
	for _, want := range []string{"flight p50", "flight p99", "cql p999", "cql ops/s", "c=4", "0.380", "48.0", "<polyline"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(out, "<tr><td>"); n != 4 {
		t.Errorf("%d step rows, want 4", n)
	}
	svgs := 0
	for rest := out; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		d := xml.NewDecoder(strings.NewReader(rest[i : i+j+len("</svg>")]))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("chart %d is not well-formed: %v", svgs, err)
			}
		}
		svgs++
		rest = rest[i+j:]
	}
	if svgs != 2 {
		t.Fatalf("%d charts, want 2", svgs)
	}
}

// TestWriteHTMLEmpty: a run without steps still writes a page.
func TestWriteHTMLEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, &Report{}, "empty"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no data") {
		t.Fatal("empty run: no 'no data' chart")
	}
}
