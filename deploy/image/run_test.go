package main

// The built image, as a container runtime would run it: unpacked from
// the OCI layout, its entrypoint and arguments started inside its own
// filesystem (chroot) as its user, over a copy of the oa corpus in its
// data volume, and queried through Flight.

import (
	"context"
	"debug/elf"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// corpusTable is the table the test reads, with its expected rows in
// the corpus.
const corpusTable = "many"

func TestImageRuns(t *testing.T) {
	requireRoot(t)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	o := &options{goCmd: "go", repo: repo, out: t.TempDir(),
		source: "https://example.invalid/sstable-flight",
		arches: []string{"amd64", "arm64"}, tarArch: runtime.GOARCH}
	built, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := readLayout(o.layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	img := platformOf(t, idx, o.arches)
	cfg := checkConfig(t, img, built.meta)
	checkTarball(t, o.tarPath, built.meta, img)

	corpus := filepath.Join(repo, "testdata", "corpus", "oa")
	// The default, hardlink snapshots in the data volume: the volume's
	// files belong to the server's user (hard links to another user's
	// files are refused where fs.protected_hardlinks is on, as on most
	// hosts: docs/image.md).
	t.Run("hardlink", func(t *testing.T) {
		runImage(t, img, cfg, corpus, uid, nil)
	})
	// Live mode over files another user owns and the server may only
	// read, the setup docs/image.md offers when the server cannot run
	// as Cassandra's user: it must serve and write nothing.
	t.Run("live read-only", func(t *testing.T) {
		runImage(t, img, cfg, corpus, 0, []string{"--snapshot-mode=live"})
	})
}

// runImage unpacks img into a new root, copies corpus into its data
// volume owned by owner, starts the image with extra arguments after
// its own, reads a table and stops it; nothing may be written outside
// the volumes, and in the default mode the snapshots go to the data
// volume.
func runImage(t *testing.T, img v1.Image, cfg v1.Config, corpus string, owner int, extra []string) {
	root := t.TempDir()
	entries := unpack(t, img, root)
	checkFilesystem(t, root, entries)
	data := filepath.Join(root, dataVolume[1:], "data")
	copyTree(t, corpus, data, owner, owner)
	srv := startImage(t, root, cfg, extra...)
	queryTable(t, srv.addr, filepath.Join(data, "corpus"), corpusTable)
	srv.terminate(t)
	checkWrittenOnlyVolumes(t, root, entries)
	_, err := os.Stat(filepath.Join(root, dataVolume[1:], "sstable-flight-snapshots"))
	if live := slices.Contains(extra, "--snapshot-mode=live"); live != errors.Is(err, fs.ErrNotExist) {
		t.Errorf("snapshot directory in the data volume (live mode %v): %v", live, err)
	}
}

// requireRoot skips the test unless it runs as root, which setting the
// image's uid and chroot need; in CI ($CI set) it fails instead.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("the image's run test needs root (chroot and the image's uid); CI must run it as root")
	}
	t.Skip("not root: the image's run test needs chroot and the image's uid")
}

// platformOf checks the index holds one linux image per arch and
// returns the host's.
func platformOf(t *testing.T, idx v1.ImageIndex, arches []string) v1.Image {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var host *v1.Descriptor
	for i, d := range im.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" {
			t.Fatalf("index entry %s: platform %v, want linux", d.Digest, d.Platform)
		}
		got = append(got, d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.OS != d.Platform.OS || cf.Architecture != d.Platform.Architecture {
			t.Errorf("index entry %v: config says %s/%s", d.Platform, cf.OS, cf.Architecture)
		}
		checkImageBinary(t, img, d.Platform.Architecture)
		if d.Platform.Architecture == runtime.GOARCH {
			host = &im.Manifests[i]
		}
	}
	if !slices.Equal(got, arches) {
		t.Fatalf("index platforms %v, want linux/%v", got, arches)
	}
	if host == nil {
		t.Fatalf("index has no linux/%s image", runtime.GOARCH)
	}
	img, err := idx.Image(host.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// checkConfig checks the image's config against the spec and returns
// it: a numeric non-root user, the entrypoint, the ports, volumes and
// labels.
func checkConfig(t *testing.T, img v1.Image, m meta) v1.Config {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("config platform %s/%s, want linux/%s", cf.OS, cf.Architecture, runtime.GOARCH)
	}
	c := cf.Config
	u, g, ok := strings.Cut(c.User, ":")
	un, uerr := strconv.Atoi(u)
	gn, gerr := strconv.Atoi(g)
	if !ok || uerr != nil || gerr != nil || un == 0 || gn == 0 {
		t.Errorf("config User %q, want numeric non-root uid:gid", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{binaryPath}) {
		t.Errorf("config Entrypoint %q, want [%s]", c.Entrypoint, binaryPath)
	}
	if len(c.Env) != 0 || len(c.Shell) != 0 || c.Healthcheck != nil {
		t.Errorf("config Env %q, Shell %q, Healthcheck %v: want none", c.Env, c.Shell, c.Healthcheck)
	}
	for _, p := range exposedPorts() {
		if _, ok := c.ExposedPorts[p]; !ok {
			t.Errorf("config ExposedPorts %v lacks %s", c.ExposedPorts, p)
		}
	}
	for _, v := range volumes() {
		if _, ok := c.Volumes[v]; !ok {
			t.Errorf("config Volumes %v lacks %s", c.Volumes, v)
		}
	}
	rev, err := git(filepath.Join("..", ".."), "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"org.opencontainers.image.source":   "https://example.invalid/sstable-flight",
		"org.opencontainers.image.revision": rev,
		"org.opencontainers.image.version":  m.version,
	}
	for k, v := range want {
		if c.Labels[k] != v || v == "" {
			t.Errorf("config label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
	return c
}

// checkTarball checks that the docker-load tarball holds img under
// both of its tags.
func checkTarball(t *testing.T, path string, m meta, img v1.Image) {
	t.Helper()
	want, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{m.version, "latest"} {
		ref := repoName + ":" + tag
		tag, err := name.NewTag(ref)
		if err != nil {
			t.Fatal(err)
		}
		timg, err := tarball.ImageFromPath(path, &tag)
		if err != nil {
			t.Fatalf("read %s from the tarball: %v", ref, err)
		}
		// The tarball stores the same config and layers; its manifest
		// is recomputed, so compare what a runtime runs.
		gotCfg, err := timg.ConfigName()
		if err != nil {
			t.Fatal(err)
		}
		wantCfg, err := img.ConfigName()
		if err != nil {
			t.Fatal(err)
		}
		if gotCfg != wantCfg {
			t.Errorf("tarball %s: config %s, want the layout's %s (image %s)", ref, gotCfg, wantCfg, want)
		}
	}
}

// checkFilesystem checks the unpacked image holds the binary (static,
// root's, read-only) and the volumes' mount points, and nothing else: no
// shell, no distribution.
func checkFilesystem(t *testing.T, root string, entries map[string]unpacked) {
	t.Helper()
	var names []string
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	want := []string{binaryPath[1:], "tmp", "var", "var/lib", dataVolume[1:]}
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("image filesystem %q, want only %q", names, want)
	}
	bin := entries[binaryPath[1:]]
	if bin.uid != 0 || bin.mode&0o222 != 0 {
		t.Errorf("%s: uid %d mode %o, want root's and not writable", binaryPath, bin.uid, bin.mode)
	}
	if dv := entries[dataVolume[1:]]; dv.uid != uid || dv.gid != gid {
		t.Errorf("%s: owner %d:%d, want the image's user %d:%d", dataVolume, dv.uid, dv.gid, uid, gid)
	}
	f, err := elf.Open(filepath.Join(root, binaryPath))
	if err != nil {
		t.Fatalf("read %s as ELF: %v", binaryPath, err)
	}
	defer f.Close()
	checkStaticELF(t, f, runtime.GOARCH)
}

// checkWrittenOnlyVolumes checks the server changed nothing outside
// the volumes: every other path is the image's, as unpacked.
func checkWrittenOnlyVolumes(t *testing.T, root string, entries map[string]unpacked) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			return nil
		}
		for _, v := range volumes() {
			if strings.HasPrefix("/"+rel+"/", v+"/") && "/"+rel != v {
				return fs.SkipDir
			}
		}
		if _, ok := entries[rel]; !ok {
			t.Errorf("%s appeared outside the volumes %v", "/"+rel, volumes())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files and directories under src to dst,
// owned by uid:gid.
func copyTree(t *testing.T, src, dst string, uid, gid int) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			return os.Chown(to, uid, gid)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
		return os.Chown(to, uid, gid)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

// running is the image's server process.
type running struct {
	cmd    *exec.Cmd
	addr   string
	stderr *flighttest.SyncBuffer
	done   chan struct{}
	err    error
}

// startImage starts the image's entrypoint with its arguments inside
// root, as its user, in its working directory, with its (empty)
// environment, and extra after its arguments. Two more are added: free
// loopback ports instead of the fixed ones, which other tests on this
// machine may hold (the flag package takes a flag's last value).
func startImage(t *testing.T, root string, c v1.Config, extra ...string) *running {
	t.Helper()
	u, g, _ := strings.Cut(c.User, ":")
	un, _ := strconv.ParseUint(u, 10, 32)
	gn, _ := strconv.ParseUint(g, 10, 32)
	argv := append(append(slices.Clone(c.Entrypoint), c.Cmd...), "--listen=127.0.0.1:0", "--admin-listen=127.0.0.1:0")
	argv = append(argv, extra...)
	r := &running{stderr: &flighttest.SyncBuffer{}, done: make(chan struct{})}
	r.cmd = &exec.Cmd{
		Path:   argv[0],
		Args:   argv,
		Dir:    c.WorkingDir,
		Env:    c.Env,
		Stderr: r.stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Chroot:     root,
			Credential: &syscall.Credential{Uid: uint32(un), Gid: uint32(gn), Groups: []uint32{}},
		},
	}
	if r.cmd.Env == nil {
		r.cmd.Env = []string{}
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start the image's entrypoint %q in %s: %v", argv, root, err)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", r.stderr.String())
		}
	})
	deadline := time.After(60 * time.Second)
	for r.addr == "" {
		select {
		case <-r.done:
			t.Fatalf("the image's server %q exited before serving: %v\n%s", argv, r.err, r.stderr.String())
		case <-deadline:
			t.Fatalf("the image's server %q did not log its Flight address within 60s\n%s", argv, r.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		r.addr = flighttest.ServingAddr(r.stderr.String())
	}
	t.Logf("image's server (uid %d, gid %d, chroot %s): %q serving on %s", un, gn, root, argv, r.addr)
	return r
}

// terminate sends SIGTERM and requires a clean exit.
func (r *running) terminate(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the image's server still running 30s after SIGTERM")
	}
	if r.err != nil {
		t.Fatalf("the image's server exit after SIGTERM: %v\n%s", r.err, r.stderr.String())
	}
}

// queryTable lists the server's flights, requires the keyspace's table
// among them, reads every endpoint of it and compares its partition
// keys with the corpus's expected.json.
func queryTable(t *testing.T, addr, keyspaceDir, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := flight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.ListFlights(ctx, &flight.Criteria{})
	if err != nil {
		t.Fatal(err)
	}
	var info *flight.FlightInfo
	var listed []string
	for {
		fi, err := list.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("ListFlights: %v", err)
		}
		p := fi.GetFlightDescriptor().GetPath()
		listed = append(listed, strings.Join(p, "."))
		if slices.Equal(p, []string{filepath.Base(keyspaceDir), table}) {
			info = fi
		}
	}
	if info == nil {
		t.Fatalf("ListFlights %q: no %s.%s", listed, filepath.Base(keyspaceDir), table)
	}
	var got []string
	for _, ep := range info.Endpoint {
		got = append(got, readIDs(ctx, t, c, ep.Ticket)...)
	}
	want := expectedIDs(t, filepath.Dir(keyspaceDir), table)
	sort.Strings(got)
	sort.Strings(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("%s: read %d partition keys, want the corpus's %d (got %.10q..., want %.10q...)", table, len(got), len(want), got, want)
	}
	t.Logf("ListFlights: %d tables; %s: %d rows as expected.json", len(listed), table, len(got))
}

// readIDs reads one ticket's rows and returns their id column as
// decimal strings.
func readIDs(ctx context.Context, t *testing.T, c flight.Client, ticket *flight.Ticket) []string {
	t.Helper()
	stream, err := c.DoGet(ctx, ticket)
	if err != nil {
		t.Fatalf("DoGet: %v", err)
	}
	rr, err := flight.NewRecordReader(stream)
	if err != nil {
		t.Fatalf("DoGet: read the schema: %v", err)
	}
	defer rr.Release()
	var ids []string
	for rr.Next() {
		rec := rr.RecordBatch()
		col, ok := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		if !ok {
			t.Fatalf("DoGet: id column is %s, want int64", rec.Column(0).DataType())
		}
		for i := 0; i < col.Len(); i++ {
			ids = append(ids, strconv.FormatInt(col.Value(i), 10))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("DoGet: %v", err)
	}
	return ids
}

// expectedIDs are the partition keys of table's rows in the corpus of
// one mode at dir, as its expected.json (CQL's answer) gives them.
func expectedIDs(t *testing.T, dir, table string) []string {
	t.Helper()
	c, err := corpus.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tab, ok := c.Tables[table]
	if !ok {
		t.Fatalf("corpus %s has no table %s", dir, table)
	}
	var ids []string
	for _, r := range tab.Expected.Rows {
		id, ok := r.Values["id"].(string)
		if !ok {
			t.Fatalf("%s's expected.json: id %v (%T), want a decimal string", table, r.Values["id"], r.Values["id"])
		}
		ids = append(ids, id)
	}
	return ids
}
