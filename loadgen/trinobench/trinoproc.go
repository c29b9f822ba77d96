package trinobench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/loadgen/testbed"
)

// TrinoSpec is how Lane B starts its one Trino: the 476 server install,
// the plugin directory `make trino-plugin` built, and the two catalogs
// over the same node, ours (sstable) and Trino's own (cassandra), with
// Trino's memory catalog for the join's dimension table.
type TrinoSpec struct {
	Home      string // trino-server-476 (deploy/local/install-trino.sh)
	JavaHome  string // a Java 24+ JDK (deploy/local/java25.sh)
	PluginDir string // trino/target/trino-sstable-flight-VERSION
	WorkDir   string // etc/, data/ and plugin/ go here
	Heap      string // -Xmx, e.g. 2G
	FlightURI string // grpc://host:port of sstable-flight
	CQLPort   int    // the node's native port, for the cassandra catalog
	Catalogs  []string
	Log       io.Writer
}

// TrinoProc is the running Trino.
type TrinoProc struct {
	Pid  int
	Base string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Catalog names of the two arms.
const (
	OursCatalog = "sstable"
	PeerCatalog = "cassandra"
)

// StartTrino writes Trino's configuration and starts it on a free
// loopback port, returning once a query lists its catalogs.
// `launcher run` execs the JVM, so the pid is the JVM's: jcmd attaches to
// it and Stop ends it.
func StartTrino(ctx context.Context, spec TrinoSpec) (*TrinoProc, error) {
	ports, err := testbed.FreeLoopbackPorts(1)
	if err != nil {
		return nil, err
	}
	_, port, err := net.SplitHostPort(ports[0])
	if err != nil {
		return nil, fmt.Errorf("trino port: %w", err)
	}
	etc := filepath.Join(spec.WorkDir, "etc")
	data := filepath.Join(spec.WorkDir, "data")
	plugins := filepath.Join(spec.WorkDir, "plugin")
	if err := os.RemoveAll(spec.WorkDir); err != nil {
		return nil, fmt.Errorf("clear trino work dir: %w", err)
	}
	for _, d := range []string{filepath.Join(etc, "catalog"), data, plugins} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create trino dirs: %w", err)
		}
	}
	// Our plugin is copied, so a rebuild during the run (Maven rewrites
	// the jars) cannot change classes the JVM has yet to load. The
	// cassandra plugin and the memory one (the join's dimension table)
	// are Trino's own, linked.
	if err := copyFlat(spec.PluginDir, filepath.Join(plugins, "sstable-flight")); err != nil {
		return nil, err
	}
	for _, name := range []string{"cassandra", "memory"} {
		if err := os.Symlink(filepath.Join(spec.Home, "plugin", name), filepath.Join(plugins, name)); err != nil {
			return nil, fmt.Errorf("link %s plugin: %w", name, err)
		}
	}
	files := map[string]string{
		"node.properties": fmt.Sprintf("node.environment=laneb\nnode.id=lane-b\nnode.data-dir=%s\n", data),
		// The options docs/trino.md asks for; the serial collector keeps
		// GC threads off a shared two-core machine.
		"jvm.config": strings.Join([]string{
			"-server", "-Xmx" + spec.Heap, "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError",
			"-XX:-OmitStackTraceInFastThrow", "-Djdk.attach.allowAttachSelf=true", "-Dfile.encoding=UTF-8",
			"--add-opens=java.base/java.nio=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
		}, "\n") + "\n",
		"config.properties": fmt.Sprintf("coordinator=true\nnode-scheduler.include-coordinator=true\nhttp-server.http.port=%s\n"+
			"discovery.uri=http://127.0.0.1:%s\nplugin.dir=%s\nquery.max-memory=1GB\nquery.max-memory-per-node=1GB\n", port, port, plugins),
		"log.properties":                           "io.trino=WARN\n",
		"catalog/" + OursCatalog + ".properties":   "connector.name=sstable_flight\nsstable-flight.uri=" + spec.FlightURI + "\n",
		"catalog/" + MemoryCatalog + ".properties": "connector.name=memory\n",
		"catalog/" + PeerCatalog + ".properties": fmt.Sprintf("connector.name=cassandra\ncassandra.contact-points=127.0.0.1\n"+
			"cassandra.native-protocol-port=%d\ncassandra.load-policy.dc-aware.local-dc=datacenter1\n", spec.CQLPort),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(body), 0o644); err != nil {
			return nil, fmt.Errorf("write trino %s: %w", name, err)
		}
	}
	p := &TrinoProc{Base: "http://" + ports[0], done: make(chan struct{})}
	p.cmd = exec.Command(filepath.Join(spec.Home, "bin", "launcher"), "run", "--etc-dir="+etc, "--data-dir="+data)
	p.cmd.Env = append(os.Environ(), "JAVA_HOME="+spec.JavaHome, "PATH="+spec.JavaHome+"/bin:"+os.Getenv("PATH"))
	p.cmd.Stdout, p.cmd.Stderr = spec.Log, spec.Log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start trino: %w", err)
	}
	p.Pid = p.cmd.Process.Pid
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, 4*time.Minute); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

// waitReady polls until Trino runs a query that lists the three catalogs.
func (p *TrinoProc) waitReady(ctx context.Context, timeout time.Duration) error {
	c := &Client{Base: p.Base, HTTP: &http.Client{Timeout: 10 * time.Second}}
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("wait for trino: exited during start-up: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("wait for trino: %w", ctx.Err())
		case <-time.After(time.Second):
		}
		r, err := c.Query(ctx, "SHOW CATALOGS")
		if err != nil {
			last = err
			continue
		}
		have := map[string]bool{}
		for _, row := range r.Rows {
			if len(row) > 0 {
				have[fmt.Sprint(row[0])] = true
			}
		}
		if have[OursCatalog] && have[PeerCatalog] && have[MemoryCatalog] {
			return nil
		}
		last = fmt.Errorf("catalogs %v lack %s, %s or %s", r.Rows, OursCatalog, PeerCatalog, MemoryCatalog)
	}
	return fmt.Errorf("wait for trino: not ready after %s (last: %v)", timeout, last)
}

// Stop sends SIGTERM (Trino shuts down on it) and kills the JVM if it
// is still there 30 seconds later.
func (p *TrinoProc) Stop() error {
	select {
	case <-p.done:
		return fmt.Errorf("trino pid %d exited before it was stopped: %v", p.Pid, p.err)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(30 * time.Second):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("stop trino pid %d: still running 30s after SIGTERM, killed", p.Pid)
}

// copyFlat copies the files of a directory without subdirectories, as
// the plugin directory is.
func copyFlat(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return fmt.Errorf("copy plugin: %w", err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return fmt.Errorf("copy plugin: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return fmt.Errorf("copy plugin: %s is not a regular file", filepath.Join(from, e.Name()))
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return fmt.Errorf("copy plugin: %w", err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return fmt.Errorf("copy plugin: %w", err)
		}
	}
	return nil
}
