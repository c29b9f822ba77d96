package trinobench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Profile is what Lane B reads of a JFR recording of Trino: execution
// samples aggregated by their top frame (where the CPU went) and by
// every method on the stack (what it was doing it for).
type Profile struct {
	File      string       `json:"file"`
	What      string       `json:"what"`    // the queries it covers
	Catalog   string       `json:"catalog"` // whose queries they were
	Samples   int          `json:"samples"`
	Self      []FrameShare `json:"self"`      // top frames
	Inclusive []FrameShare `json:"inclusive"` // methods anywhere on the stack, but for the JDK's and the HTTP server's
	Areas     []FrameShare `json:"areas"`     // top frames by code area
	// Samples with a frame of the area anywhere on the stack: how much
	// of Trino's work was on behalf of gRPC, Arrow, the connector.
	AreasOnStack []FrameShare `json:"areas_on_stack"`
	// Packages are top frames by Java package (its first four names),
	// finer than Areas: where Trino's engine itself spends its time.
	Packages []FrameShare `json:"packages"`
	// PackagesOnStack are samples with a frame of the package anywhere
	// on the stack, but for the JDK's and the HTTP server's (plumbing
	// every thread shares).
	PackagesOnStack []FrameShare `json:"packages_on_stack"`
	// Connectors are samples with a frame of a connector or of the
	// libraries only it uses anywhere on the stack: a connector's share
	// of Trino's CPU with its transport (gRPC's and Netty's threads work
	// for the connector without its frames on their stacks).
	Connectors []FrameShare `json:"connectors"`
}

// connectorGroups name each connector with the code only it brings into
// Trino. Netty is in both: a profile of one catalog's queries counts it
// for that catalog's connector only (the report shows that one).
var connectorGroups = []struct {
	name, catalog string
	prefixes      []string
}{
	{"our connector with gRPC, Arrow and Netty", OursCatalog, []string{"io.sstableflight.", "io.grpc.", "org.apache.arrow.", "io.netty."}},
	{"Trino's cassandra connector with the DataStax driver and Netty", PeerCatalog, []string{"io.trino.plugin.cassandra.", "com.datastax.", "io.netty."}},
}

// Connector is the group of Connectors that belongs to the profiled
// catalog's connector (all of them if the catalog is not known).
func (p *Profile) Connector() []FrameShare {
	var out []FrameShare
	for _, f := range p.Connectors {
		for _, g := range connectorGroups {
			if g.name == f.Name && (p.Catalog == "" || g.catalog == p.Catalog) {
				out = append(out, f)
			}
		}
	}
	return out
}

// FrameShare is one method (or area) and its share of the samples.
type FrameShare struct {
	Name    string  `json:"name"`
	Samples int     `json:"samples"`
	Percent float64 `json:"percent"`
}

// JFR drives a flight recording of one JVM through jcmd and reads it
// with the jfr tool, both from javaHome.
type JFR struct {
	JavaHome string
	Pid      int
	Name     string
}

// Start begins a recording with the "profile" settings (Java samples
// every 10 ms).
func (j JFR) Start(ctx context.Context) error {
	return j.jcmd(ctx, "JFR.start", "name="+j.Name, "settings=profile")
}

// Stop ends the recording and writes it to path.
func (j JFR) Stop(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("jfr stop: %w", err)
	}
	return j.jcmd(ctx, "JFR.stop", "name="+j.Name, "filename="+abs)
}

func (j JFR) jcmd(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, filepath.Join(j.JavaHome, "bin", "jcmd"), append([]string{fmt.Sprint(j.Pid)}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("jcmd %d %s: %w\n%s", j.Pid, strings.Join(args, " "), err, out)
	}
	return nil
}

// Summarize prints the recording's execution samples and aggregates them:
// a recording of what's queries through catalog.
func (j JFR) Summarize(ctx context.Context, path, what, catalog string, top int) (*Profile, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(j.JavaHome, "bin", "jfr"), "print", "--events", "jdk.ExecutionSample", "--stack-depth", "64", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("jfr print %s: %w", path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("jfr print %s: %w", path, err)
	}
	p, perr := ParseSamples(out, top)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("jfr print %s: %w", path, err)
	}
	if perr != nil {
		return nil, fmt.Errorf("jfr print %s: %w", path, perr)
	}
	p.File, p.What, p.Catalog = path, what, catalog
	return p, nil
}

// ParseSamples aggregates `jfr print --events jdk.ExecutionSample`
// output: each event's stackTrace = [ ... ] lists frames top first, as
// "pkg.Class.method(Args) line: N".
func ParseSamples(r io.Reader, top int) (*Profile, error) {
	self, incl, areas, onStack := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	pkgs, pkgsOn, groups := map[string]int{}, map[string]int{}, map[string]int{}
	p := &Profile{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var stack []string
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "stackTrace = ["):
			in, stack = true, stack[:0]
		case in && line == "]":
			in = false
			if len(stack) == 0 {
				continue
			}
			p.Samples++
			self[stack[0]]++
			areas[area(stack[0])]++
			pkgs[javaPackage(stack[0])]++
			seen := map[string]bool{}
			for _, f := range stack {
				if !plumbing(f) && !seen[f] {
					seen[f] = true
					incl[f]++
				}
				if a := "area " + area(f); !seen[a] {
					seen[a] = true
					onStack[a[len("area "):]]++
				}
				if pk := "package " + javaPackage(f); !plumbing(f) && !seen[pk] {
					seen[pk] = true
					pkgsOn[pk[len("package "):]]++
				}
				for _, g := range connectorGroups {
					if k := "group " + g.name; !seen[k] && hasPrefix(f, g.prefixes) {
						seen[k] = true
						groups[g.name]++
					}
				}
			}
		case in:
			if f := frameName(line); f != "" {
				stack = append(stack, f)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read samples: %w", err)
	}
	p.Self = shares(self, p.Samples, top)
	p.Inclusive = shares(incl, p.Samples, top)
	p.Areas = shares(areas, p.Samples, 0)
	p.AreasOnStack = shares(onStack, p.Samples, 0)
	p.Packages = shares(pkgs, p.Samples, top)
	p.PackagesOnStack = shares(pkgsOn, p.Samples, top)
	p.Connectors = shares(groups, p.Samples, 0)
	return p, nil
}

// Share is the percent of samples of the named entry of list (0 if absent).
func Share(list []FrameShare, name string) float64 {
	for _, f := range list {
		if f.Name == name {
			return f.Percent
		}
	}
	return 0
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// javaPackage is a frame's package: its names before the first that
// starts with a capital (the class), at most four of them.
func javaPackage(frame string) string {
	parts := strings.Split(frame, ".")
	n := 0
	for n < len(parts)-1 && n < 4 && parts[n] != "" && !(parts[n][0] >= 'A' && parts[n][0] <= 'Z') {
		n++
	}
	if n == 0 {
		return "(default package)"
	}
	return strings.Join(parts[:n], ".")
}

// frameName is "pkg.Class.method" of a frame line; "..." (a stack cut
// at the depth limit) is no frame.
func frameName(line string) string {
	if i := strings.IndexByte(line, '('); i > 0 {
		return line[:i]
	}
	if line == "..." {
		return ""
	}
	return line
}

// plumbing is a frame every sample of a thread pool shares (the JDK's
// and the HTTP server's): on the inclusive list it would only push the
// methods that say what the work was off the top.
func plumbing(frame string) bool {
	return hasPrefix(frame, []string{"java.", "jdk.", "sun.", "org.glassfish.", "org.eclipse.jetty.", "io.airlift.http."})
}

// area names the code a top frame belongs to.
func area(frame string) string {
	for _, a := range []struct{ prefix, name string }{
		{"io.sstableflight.", "our connector (io.sstableflight)"},
		{"org.apache.arrow.", "Arrow Java (org.apache.arrow)"},
		{"io.grpc.", "gRPC (io.grpc)"},
		{"io.netty.", "Netty (io.netty)"},
		{"com.datastax.", "Cassandra driver (com.datastax)"},
		{"io.trino.plugin.cassandra.", "Trino's cassandra connector"},
		{"io.trino.", "Trino engine (io.trino)"},
		{"io.airlift.", "airlift (io.airlift)"},
		{"com.fasterxml.jackson.", "JSON (jackson)"},
		{"org.glassfish.", "HTTP server (jersey, jetty)"},
		{"org.eclipse.jetty.", "HTTP server (jersey, jetty)"},
		{"java.", "JDK (java.*)"},
		{"jdk.", "JDK (jdk.*)"},
		{"sun.", "JDK (sun.*)"},
	} {
		if strings.HasPrefix(frame, a.prefix) {
			return a.name
		}
	}
	return "other"
}

func shares(m map[string]int, total, top int) []FrameShare {
	out := make([]FrameShare, 0, len(m))
	for k, v := range m {
		out = append(out, FrameShare{Name: k, Samples: v, Percent: 100 * float64(v) / float64(max(1, total))})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Samples != out[j].Samples {
			return out[i].Samples > out[j].Samples
		}
		return out[i].Name < out[j].Name
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out
}
