package main

// The Cassandra image run by runc, as a kubelet's containerd runs it
// under the chart's securityContext: its user (999:999, with the
// fsGroup 999 as a supplementary group), no capabilities, no new
// privileges, the runtime's default seccomp profile, its own PID, IPC,
// UTS, mount and network namespaces, a cgroup with a memory limit, and a
// volume over /var/lib/cassandra owned by root and the fsGroup as a
// kubelet leaves a fresh one.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
	"github.com/sstable-flight/sstable-flight/internal/testkit/flighttest"
)

// containerMemory is the container's memory limit: room for the test's
// 512 MiB heap and Cassandra's memory off the heap.
const containerMemory = 2 << 30

// runcContainer is one container, run in the foreground by `runc run`,
// so its exit status is runc's.
type runcContainer struct {
	id, root, bundle string
	cgroupsPath      string
	cmd              *exec.Cmd
	logs             *flighttest.SyncBuffer // the container's stdout and stderr
	done             chan struct{}
	err              error // runc run's exit, set once done is closed
}

// containerSpec is the OCI spec of args with env in rootfs, the volume
// dir over Data and hosts as /etc/hosts, in the network namespace at
// netnsPath.
func containerSpec(rootfs, volume, hosts, netnsPath, cgroupsPath string, args, env []string) (*specs.Spec, error) {
	limit := int64(containerMemory)
	s := &specs.Spec{
		Version:  "1.0.2",
		Root:     &specs.Root{Path: rootfs},
		Hostname: "cassandra-0",
		Process: &specs.Process{
			User:            specs.User{UID: cassandra.UID, GID: cassandra.GID, AdditionalGids: []uint32{cassandra.GID}},
			Args:            args,
			Env:             env,
			Cwd:             "/",
			NoNewPrivileges: true,
			// capabilities: drop: [ALL]
			Capabilities: &specs.LinuxCapabilities{Bounding: []string{}, Effective: []string{}, Permitted: []string{}},
			Rlimits:      []specs.POSIXRlimit{openFiles()},
		},
		Mounts: []specs.Mount{
			{Destination: "/proc", Type: "proc", Source: "proc", Options: []string{"nosuid", "noexec", "nodev"}},
			{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
			{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}},
			{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
			{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
			{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
			{Destination: "/sys/fs/cgroup", Type: "cgroup", Source: "cgroup", Options: []string{"nosuid", "noexec", "nodev", "relatime", "ro"}},
			{Destination: cassandra.Data, Type: "bind", Source: volume, Options: []string{"rbind", "rw"}},
			{Destination: "/etc/hosts", Type: "bind", Source: hosts, Options: []string{"rbind", "ro"}},
		},
		Linux: &specs.Linux{
			CgroupsPath: cgroupsPath,
			Namespaces: []specs.LinuxNamespace{
				{Type: specs.PIDNamespace}, {Type: specs.IPCNamespace}, {Type: specs.UTSNamespace},
				{Type: specs.MountNamespace}, {Type: specs.NetworkNamespace, Path: netnsPath},
			},
			Resources: &specs.LinuxResources{
				Devices: []specs.LinuxDeviceCgroup{{Allow: false, Access: "rwm"}},
				Memory:  &specs.LinuxMemory{Limit: &limit},
			},
			MaskedPaths: []string{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
				"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"},
			ReadonlyPaths: []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"},
		},
	}
	// seccompProfile: RuntimeDefault. The profile depends on the
	// capabilities (none here), so it is made from the spec.
	sc, err := seccomp.GetDefaultProfile(s)
	if err != nil {
		return nil, fmt.Errorf("make the default seccomp profile: %w", err)
	}
	s.Linux.Seccomp = sc
	return s, nil
}

// openFiles is the container's RLIMIT_NOFILE: the test's own hard
// limit (a containerd passes its own on), as soft and hard, as Cassandra
// wants many; raising it past the hard limit takes CAP_SYS_RESOURCE,
// which this machine's root may lack.
func openFiles() specs.POSIXRlimit {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		l.Max = 1024
	}
	return specs.POSIXRlimit{Type: "RLIMIT_NOFILE", Hard: l.Max, Soft: l.Max}
}

// runContainer writes spec into a bundle and starts `runc run` with a
// state directory of its own (not containerd's); cleanup kills and
// deletes the container whatever happened and checks its cgroups went.
func runContainer(t *testing.T, spec *specs.Spec) *runcContainer {
	t.Helper()
	dir := t.TempDir()
	c := &runcContainer{
		id:          "sstf-cassandra-image-test-" + filepath.Base(dir),
		root:        filepath.Join(dir, "runc"),
		bundle:      filepath.Join(dir, "bundle"),
		cgroupsPath: spec.Linux.CgroupsPath,
		logs:        &flighttest.SyncBuffer{},
		done:        make(chan struct{}),
	}
	if err := os.MkdirAll(c.bundle, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.bundle, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command("runc", "--root", c.root, "run", "--bundle", c.bundle, c.id)
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	// Should this test die, runc goes too (the container then lingers
	// until `runc --root` of its state directory kills it; the log names
	// the directory). The parent-death signal is the starting thread's:
	// runc is started and waited for on a thread locked to one goroutine,
	// which no other goroutine can end (the network namespace's goroutines
	// end theirs).
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		t.Fatalf("start runc run %s: %v", c.id, err)
	}
	t.Logf("runc --root %s run %s (bundle %s)", c.root, c.id, c.bundle)
	t.Cleanup(func() { c.destroy(t) })
	return c
}

// pid waits, up to timeout, until the container runs and returns its
// process's pid on the host.
func (c *runcContainer) pid(timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		var st struct {
			Status string `json:"status"`
			Pid    int    `json:"pid"`
		}
		out, err := exec.Command("runc", "--root", c.root, "state", c.id).Output()
		if err == nil {
			err = json.Unmarshal(out, &st)
		}
		if err == nil && st.Status == "running" && st.Pid > 0 {
			return st.Pid, nil
		}
		if c.exited() || time.Now().After(deadline) {
			return 0, fmt.Errorf("container %s not running (state %q, %v)", c.id, st.Status, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exited says whether the container has stopped.
func (c *runcContainer) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exec runs argv in the container as its user, bounded by ctx, and
// returns its combined output.
func (c *runcContainer) exec(ctx context.Context, argv ...string) (string, error) {
	args := append([]string{"--root", c.root, "exec", "--user", cassandra.User(), "--additional-gids", fmt.Sprint(cassandra.GID), c.id}, argv...)
	out, err := exec.CommandContext(ctx, "runc", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("runc exec %q: %w\n%s", argv, err, out)
	}
	return string(out), nil
}

// terminate sends SIGTERM, as a kubelet does after the preStop hook, and
// waits up to grace for the container to exit; it returns the exit.
func (c *runcContainer) terminate(grace time.Duration) (time.Duration, error) {
	start := time.Now()
	if out, err := exec.Command("runc", "--root", c.root, "kill", c.id, "TERM").CombinedOutput(); err != nil {
		return 0, fmt.Errorf("runc kill %s TERM: %w\n%s", c.id, err, out)
	}
	select {
	case <-c.done:
		return time.Since(start), c.err
	case <-time.After(grace):
		return 0, fmt.Errorf("container %s still running %s after SIGTERM", c.id, grace)
	}
}

// destroy kills what still runs, deletes the container and checks that
// runc removed its cgroups.
func (c *runcContainer) destroy(t *testing.T) {
	if !c.exited() {
		_ = exec.Command("runc", "--root", c.root, "kill", c.id, "KILL").Run()
		select {
		case <-c.done:
		case <-time.After(30 * time.Second):
			t.Errorf("container %s still running 30s after SIGKILL (runc --root %s)", c.id, c.root)
			return
		}
	}
	if out, err := exec.Command("runc", "--root", c.root, "delete", "--force", c.id).CombinedOutput(); err != nil &&
		!bytes.Contains(out, []byte("does not exist")) {
		t.Errorf("runc delete %s: %v\n%s", c.id, err, out)
	}
	if left := leftCgroups(c.cgroupsPath); len(left) > 0 {
		t.Errorf("cgroups of container %s left behind: %v", c.id, left)
	}
	if t.Failed() {
		t.Logf("container output:\n%s", tailLines(c.logs.String(), 80))
	}
}

// leftCgroups lists the directories of cgroupsPath still in any
// hierarchy under /sys/fs/cgroup.
func leftCgroups(cgroupsPath string) []string {
	hier, _ := filepath.Glob("/sys/fs/cgroup/*")
	var left []string
	for _, h := range append(hier, "/sys/fs/cgroup") {
		p := filepath.Join(h, cgroupsPath)
		if _, err := os.Stat(p); err == nil {
			left = append(left, p)
		} else if !errors.Is(err, os.ErrNotExist) {
			left = append(left, p+": "+err.Error())
		}
	}
	return left
}

// tailLines is the last n lines of s, each cut to 300 bytes (Cassandra
// logs its whole configuration on one line).
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "..."
		}
	}
	return strings.Join(lines, "\n")
}
