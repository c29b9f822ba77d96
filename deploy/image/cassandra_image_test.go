package main

// TestCassandraImage runs the built test Cassandra image
// (build/image/cassandra.tar, `make cassandra-image`) with runc under the
// chart's securityContext and the chart's environment, and checks what
// the chart and the real-kubelet tests rely on: CQL answers with
// authentication required, the default superuser logs in, a table
// written reads back, `nodetool status` through the symlink shows the
// node Up and Normal, `nodetool drain` (the chart's preStop hook) drains
// it, and SIGTERM stops it within a bound.

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// The environment the test gives the container: the chart's variables
// (statefulset.yaml), with "auto" for the listen address (the chart
// gives the pod's IP; auto must find the same) and a seed by name, as
// the chart's are, resolved through /etc/hosts.
const (
	testCluster = "sstf image test"
	testDC      = "dc-test"
	testRack    = "rack-a"
	testSeed    = "cassandra-0.cassandra.test"
	testTokens  = 8
)

// Bounds of the test's waits.
const (
	cqlTimeout   = 3 * time.Minute
	loginTimeout = time.Minute
	toolTimeout  = 2 * time.Minute
	stopGrace    = 90 * time.Second
)

func TestCassandraImage(t *testing.T) {
	requireRoot(t)
	tarPath := cassandraTarball(t)
	requireRunc(t)
	img := readCassandraImage(t, tarPath)
	cfg := checkCassandraConfig(t, img)

	rootfs := filepath.Join(t.TempDir(), "rootfs")
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		t.Fatal(err)
	}
	entries := unpack(t, img, rootfs)
	checkCassandraFilesystem(t, rootfs, entries)

	volume, hosts := kubeletFiles(t)
	cn := newContainerNet(t)
	env := append(slices.Clone(cfg.Env),
		"CASSANDRA_LISTEN_ADDRESS=auto",
		"CASSANDRA_SEEDS="+testSeed,
		"CASSANDRA_CLUSTER_NAME="+testCluster,
		"CASSANDRA_DC="+testDC,
		"CASSANDRA_RACK="+testRack,
		"CASSANDRA_ENDPOINT_SNITCH=GossipingPropertyFileSnitch",
		"CASSANDRA_NUM_TOKENS="+strconv.Itoa(testTokens),
		"MAX_HEAP_SIZE=512M",
		"HEAP_NEWSIZE=128M",
	)
	spec, err := containerSpec(rootfs, volume, hosts, cn.path(), "/sstf-cassandra-image-test-"+strconv.Itoa(os.Getpid()),
		append(slices.Clone(cfg.Entrypoint), cfg.Cmd...), env)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c := runContainer(t, spec)
	checkConfined(t, c)

	cql := cqlClient{net: cn, host: cn.addr}
	if err := cql.waitCQL(cqlTimeout, c.exited); err != nil {
		if c.exited() {
			err = fmt.Errorf("%w; runc run: %v", err, c.err)
		}
		t.Fatal(err)
	}
	t.Logf("CQL answered (authentication required) %.1fs after runc run", time.Since(start).Seconds())
	if _, err := cql.session("cassandra", "not-the-password"); err == nil || !strings.Contains(err.Error(), "incorrect") {
		t.Errorf("log in with a wrong password: %v, want refused as incorrect", err)
	}
	s, err := cql.login(loginTimeout, "cassandra", "cassandra")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cassandra/cassandra logged in %.1fs after runc run", time.Since(start).Seconds())
	checkLocal(t, s, cn.addr)
	writeAndRead(t, s)
	s.Close()

	checkNodetool(t, c, cn.addr)
	took, err := c.terminate(stopGrace)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 143) {
		t.Fatalf("stop with SIGTERM: %v", err)
	}
	t.Logf("container stopped %.1fs after SIGTERM (%v)", took.Seconds(), err)
	checkWrittenFiles(t, rootfs, volume, cn.addr)
}

// cassandraTarball is the tarball to test: SSTF_CASSANDRA_IMAGE, or
// `make cassandra-image`'s. Missing, the test is skipped, or fails in CI.
func cassandraTarball(t *testing.T) string {
	t.Helper()
	p := os.Getenv("SSTF_CASSANDRA_IMAGE")
	if p == "" {
		p = filepath.Join("..", "..", "build", "image", "cassandra.tar")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the Cassandra image %s is missing (%v): CI must run `make cassandra-image` first", p, err)
		}
		t.Skipf("the Cassandra image %s is missing (%v): run `make cassandra-image`", p, err)
	}
	return p
}

// requireRunc skips the test without runc, or fails in CI.
func requireRunc(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("runc"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("runc is not installed (Debian: apt-get install runc): CI must install it")
		}
		t.Skip("runc is not installed (Debian: apt-get install runc)")
	}
}

func readCassandraImage(t *testing.T, path string) v1.Image {
	t.Helper()
	tag, err := name.NewTag(cassandraTag())
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatalf("read %s from %s: %v", cassandraTag(), path, err)
	}
	return img
}

// checkCassandraConfig checks the config a runtime reads: the numeric
// user Kubernetes' runAsNonRoot can verify, the entrypoint and the
// official image's command, environment, ports and volume.
func checkCassandraConfig(t *testing.T, img v1.Image) v1.Config {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != "999:999" {
		t.Errorf("config User %q, want 999:999", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{cassandra.Entrypoint}) || !slices.Equal(c.Cmd, []string{"cassandra", "-f"}) {
		t.Errorf("config Entrypoint %q Cmd %q, want [%s] [cassandra -f]", c.Entrypoint, c.Cmd, cassandra.Entrypoint)
	}
	for _, kv := range []string{"JAVA_HOME=/opt/java/openjdk", "CASSANDRA_HOME=/opt/cassandra", "CASSANDRA_CONF=/etc/cassandra"} {
		if !slices.Contains(c.Env, kv) {
			t.Errorf("config Env %q lacks %s", c.Env, kv)
		}
	}
	for _, p := range []string{"7000/tcp", "7199/tcp", "9042/tcp"} {
		if _, ok := c.ExposedPorts[p]; !ok {
			t.Errorf("config ExposedPorts %v lack %s", c.ExposedPorts, p)
		}
	}
	if _, ok := c.Volumes["/var/lib/cassandra"]; !ok {
		t.Errorf("config Volumes %v lack /var/lib/cassandra", c.Volumes)
	}
	return c
}

// checkCassandraFilesystem checks the layout the chart and the official
// image's users expect, and that nothing in it needs privileges: no
// set-id file, nothing writable by others but /tmp, and the user owns
// only its own directories.
func checkCassandraFilesystem(t *testing.T, root string, entries map[string]unpacked) {
	t.Helper()
	contains := func(path, want string) {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("/%s: want %q in it (%v)", path, want, err)
		}
	}
	contains("etc/passwd", "cassandra:x:999:999:")
	contains("etc/group", "cassandra:x:999:")
	contains("etc/cassandra/cassandra.yaml", "org.apache.cassandra.auth.PasswordAuthenticator")
	contains("etc/cassandra/cassandra.yaml", "org.apache.cassandra.auth.CassandraAuthorizer")
	if e := entries["tmp"]; e.mode&0o1777 != 0o1777 {
		t.Errorf("/tmp mode %o, want 1777", e.mode)
	}
	userOwned := []string{"etc/cassandra", "var/lib/cassandra", "var/log/cassandra", "home/cassandra"}
	for _, d := range append(slices.Clone(userOwned), "var/lib/cassandra/data", "var/lib/cassandra/commitlog",
		"var/lib/cassandra/hints", "var/lib/cassandra/saved_caches", "etc/cassandra/cassandra.yaml") {
		if e, ok := entries[d]; !ok || e.uid != cassandra.UID || e.gid != cassandra.GID {
			t.Errorf("/%s: %+v, want owned by 999:999", d, e)
		}
	}
	if e := entries["usr/local/bin/nodetool"]; e.typeflag != '2' || e.link != "cassandra-entrypoint" {
		t.Errorf("/usr/local/bin/nodetool: %+v, want a symlink to cassandra-entrypoint", e)
	}
	for _, p := range []string{"opt/java/openjdk/bin/java", "opt/cassandra/lib/cassandra-all-" + cassandratest.Version + ".jar"} {
		if _, ok := entries[p]; !ok {
			t.Errorf("/%s missing", p)
		}
	}
	for p, e := range entries {
		switch {
		case e.mode&0o6000 != 0:
			t.Errorf("/%s: set-id mode %o", p, e.mode)
		case e.typeflag != '2' && e.mode&0o002 != 0 && p != "tmp":
			t.Errorf("/%s: writable by all, mode %o", p, e.mode)
		case e.uid != 0 && !slices.ContainsFunc(userOwned, func(d string) bool { return p == d || strings.HasPrefix(p, d+"/") }):
			t.Errorf("/%s: owned by %d, want root outside the user's directories", p, e.uid)
		}
	}
	f, err := elf.Open(filepath.Join(root, cassandra.Entrypoint))
	if err != nil {
		t.Fatalf("read the entrypoint as ELF: %v", err)
	}
	defer f.Close()
	if slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP }) {
		t.Errorf("%s is dynamically linked: want a static binary", cassandra.Entrypoint)
	}
	if e := entries[imagePath(cassandra.Entrypoint)]; e.uid != 0 || e.mode&0o222 != 0 {
		t.Errorf("%s: %+v, want root's and read-only", cassandra.Entrypoint, e)
	}
}

// kubeletFiles are what a kubelet would give the container: a fresh
// volume for /var/lib/cassandra, root's with the fsGroup (999) and the
// set-group-id bit, and an /etc/hosts, here naming the seed.
func kubeletFiles(t *testing.T) (volume, hosts string) {
	t.Helper()
	dir := t.TempDir()
	volume = filepath.Join(dir, "cassandra-data")
	if err := os.Mkdir(volume, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(volume, 0, cassandra.GID); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(volume, 0o775|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	hosts = filepath.Join(dir, "hosts")
	text := "127.0.0.1\tlocalhost\n" + netIP + "\t" + testSeed + " cassandra-0\n"
	if err := os.WriteFile(hosts, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return volume, hosts
}

// checkConfined reads the container's process from the host: its user,
// no capabilities, no new privileges, seccomp filtering.
func checkConfined(t *testing.T, c *runcContainer) {
	t.Helper()
	pid, err := c.pid(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("read the container process's status: %v", err)
	}
	for _, want := range []string{"Uid:\t999\t999\t999\t999", "Gid:\t999\t999\t999\t999", "CapEff:\t0000000000000000",
		"CapBnd:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !bytes.Contains(status, []byte(want+"\n")) {
			t.Errorf("container process: want %q in /proc/pid/status:\n%s", want, status)
		}
	}
}

// checkLocal checks what the node says of itself against the
// environment it was given: the release, the cluster's name, the DC and
// rack through GossipingPropertyFileSnitch, the address "auto" found,
// the number of tokens, and the default superuser.
func checkLocal(t *testing.T, s *gocql.Session, addr string) {
	t.Helper()
	r, err := readLocal(s)
	if err != nil {
		t.Fatal(err)
	}
	if r.release != cassandratest.Version || r.cluster != testCluster || r.dc != testDC || r.rack != testRack || r.tokens != testTokens {
		t.Errorf("system.local: release %s, cluster %q, dc %s, rack %s, %d tokens; want %s, %q, %s, %s, %d",
			r.release, r.cluster, r.dc, r.rack, r.tokens, cassandratest.Version, testCluster, testDC, testRack, testTokens)
	}
	for what, ip := range map[string]net.IP{"listen_address": r.listen, "broadcast_address": r.broadcast, "rpc_address": r.rpc} {
		if ip.String() != addr {
			t.Errorf("system.local %s %s, want the container's address %s", what, ip, addr)
		}
	}
	supers, err := superusers(s)
	if err != nil || !slices.Equal(supers, []string{"cassandra"}) {
		t.Errorf("superusers %v (%v), want [cassandra], as Cassandra creates it", supers, err)
	}
}

// checkNodetool runs nodetool through its symlink in the container, as
// the chart's preStop hook does: status shows the node Up and Normal,
// drain drains it.
func checkNodetool(t *testing.T, c *runcContainer, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	start := time.Now()
	out, err := c.exec(ctx, "nodetool", "status")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nodetool status (%.1fs):\n%s", time.Since(start).Seconds(), out)
	if !regexp.MustCompile(`(?m)^UN\s+` + regexp.QuoteMeta(addr) + `\s`).MatchString(out) {
		t.Errorf("nodetool status: no line \"UN  %s\"", addr)
	}
	if !strings.Contains(out, "Datacenter: "+testDC) {
		t.Errorf("nodetool status: no \"Datacenter: %s\"", testDC)
	}
	if _, err := c.exec(ctx, "nodetool", "drain"); err != nil {
		t.Fatal(err)
	}
	out, err = c.exec(ctx, "nodetool", "netstats")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Mode: DRAINED") {
		t.Errorf("nodetool netstats after drain: no \"Mode: DRAINED\":\n%s", out)
	}
}

// checkWrittenFiles checks what the entrypoint and Cassandra wrote: the
// configuration rewritten from the environment, and the data on the
// volume, the user's.
func checkWrittenFiles(t *testing.T, rootfs, volume, addr string) {
	t.Helper()
	yaml, err := os.ReadFile(filepath.Join(rootfs, cassandra.Conf, cassandra.YAMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listen_address: " + addr + "\n", "rpc_address: 0.0.0.0\n", "broadcast_rpc_address: " + addr + "\n",
		`- seeds: "` + testSeed + `"`, "cluster_name: " + testCluster + "\n", "endpoint_snitch: GossipingPropertyFileSnitch\n"} {
		if !strings.Contains(string(yaml), want) {
			t.Errorf("cassandra.yaml after start: no %q", want)
		}
	}
	props, err := os.ReadFile(filepath.Join(rootfs, cassandra.Conf, cassandra.RackDCFile))
	if err != nil || !strings.Contains(string(props), "dc="+testDC+"\n") || !strings.Contains(string(props), "rack="+testRack+"\n") {
		t.Errorf("cassandra-rackdc.properties after start: %q (%v)", props, err)
	}
	tables, _ := filepath.Glob(filepath.Join(volume, "data", "imagetest", "kv-*"))
	if len(tables) != 1 {
		t.Fatalf("the volume holds %d directories of imagetest.kv, want 1", len(tables))
	}
	err = filepath.WalkDir(volume, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == volume {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != cassandra.UID {
			t.Errorf("%s on the volume: owner %d, want %d", path, st.Uid, cassandra.UID)
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
