package main

import (
	"net"
	"slices"
	"strings"
	"testing"
)

func TestHeapSize(t *testing.T) {
	mem := func(mb int64) func() (int64, error) { return func() (int64, error) { return mb, nil } }
	for _, c := range []struct {
		env  map[string]string
		mem  int64
		want string
	}{
		{map[string]string{"MAX_HEAP_SIZE": "512M", "HEAP_NEWSIZE": "128M"}, 0, "512M"},
		{nil, 1500, "750M"},   // half of a small machine
		{nil, 3000, "1024M"},  // half, capped at 1 GiB, above a quarter
		{nil, 24576, "6144M"}, // a quarter of 24 GiB
		{nil, 65536, "8192M"}, // a quarter, capped at 8 GiB
	} {
		got, err := heapSize(envOf(c.env), mem(c.mem))
		if err != nil || got != c.want {
			t.Errorf("heapSize(%v, %d MB) = %q, %v; want %q", c.env, c.mem, got, err, c.want)
		}
	}
	for _, env := range []map[string]string{{"MAX_HEAP_SIZE": "512 MB"}, {"MAX_HEAP_SIZE": "1G", "HEAP_NEWSIZE": "lots"}} {
		if _, err := heapSize(envOf(env), mem(1000)); err == nil {
			t.Errorf("heapSize(%v): no error", env)
		}
	}
}

func TestParseDaemonArgs(t *testing.T) {
	f, err := parseDaemonArgs([]string{"-f", "-R", "-Dcassandra.superuser_setup_delay_ms=0"})
	if err != nil || !f.allowRoot || !slices.Equal(f.jvm, []string{"-Dcassandra.superuser_setup_delay_ms=0"}) {
		t.Errorf("parseDaemonArgs = %+v, %v", f, err)
	}
	if _, err := parseDaemonArgs([]string{"-p", "pidfile"}); err == nil {
		t.Error("parseDaemonArgs(-p pidfile): no error")
	}
}

// NodeTool gets the local JMX port unless told another, and -D
// arguments become the JVM's, as bin/nodetool does.
func TestNodetoolArgv(t *testing.T) {
	jars := []string{"/opt/cassandra/lib/a.jar"}
	argv := nodetoolArgv("128m", jars, []string{"-Dx=y", "status"})
	tail := argv[slices.Index(argv, "org.apache.cassandra.tools.NodeTool"):]
	if !slices.Equal(tail, []string{"org.apache.cassandra.tools.NodeTool", "-p", "7199", "status"}) {
		t.Errorf("nodetool argv ends %q", tail)
	}
	if i := slices.Index(argv, "-Dx=y"); i < 0 || i > slices.Index(argv, "-cp") {
		t.Errorf("nodetool argv %q: -Dx=y not among the JVM's arguments", argv)
	}
	if !slices.Contains(argv, "-Xmx128m") || !strings.HasSuffix(argv[0], "/bin/java") {
		t.Errorf("nodetool argv %q: want java with -Xmx128m", argv)
	}
	argv = nodetoolArgv("128m", jars, []string{"--port=7299", "drain"})
	if slices.Contains(argv, "7199") {
		t.Errorf("nodetool argv %q: the default port besides --port", argv)
	}
}

// The daemon's arguments end with the classpath (configuration first)
// and the daemon's class, after JVM_EXTRA_OPTS and the -D flags.
func TestDaemonArgv(t *testing.T) {
	argv := daemonArgv("1G", []string{"/l/a.jar", "/l/b.jar"}, []string{"-Dextra=1"}, []string{"-Dflag=2"})
	n := len(argv)
	if !slices.Equal(argv[n-5:], []string{"-Dextra=1", "-Dflag=2", "-cp", "/etc/cassandra:/l/a.jar:/l/b.jar", "org.apache.cassandra.service.CassandraDaemon"}) {
		t.Errorf("daemon argv ends %q", argv[n-5:])
	}
	for _, want := range []string{"-Xms1G", "-Xmx1G", "-XX:+UseG1GC", "-Dcassandra.jmx.local.port=7199", "-Dcassandra-foreground=yes"} {
		if !slices.Contains(argv, want) {
			t.Errorf("daemon argv lacks %s", want)
		}
	}
	if slices.ContainsFunc(argv, func(a string) bool { return strings.HasPrefix(a, "-Xmn") }) {
		t.Error("daemon argv sets -Xmn, which G1 must not get")
	}
}

func TestPickIPv4(t *testing.T) {
	cidr := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	addrs := []net.Addr{cidr("fe80::1/64"), cidr("169.254.3.4/16"), cidr("127.0.0.2/8"), cidr("10.88.0.9/24"), cidr("10.88.0.10/24")}
	if got := pickIPv4(addrs); got != "10.88.0.9" {
		t.Errorf("pickIPv4 = %q, want 10.88.0.9", got)
	}
	if got := pickIPv4(addrs[:3]); got != "" {
		t.Errorf("pickIPv4 of link-local and loopback = %q, want none", got)
	}
}
