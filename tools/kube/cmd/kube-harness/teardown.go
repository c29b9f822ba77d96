package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// stopNode tears down the node recorded in dir, in the order that lets
// each program undo its own work before the harness undoes the rest:
//
//  1. the controller-manager and scheduler stop, so no pod is recreated;
//  2. every pod is deleted while the API server, kubelet and containerd
//     still run, so the kubelet stops its containers, unmounts its
//     volumes and has containerd tear the sandboxes' networks down;
//  3. the processes stop (each by its pid file): kubelet, kube-proxy,
//     CoreDNS, then containerd's tasks and shims, containerd, the API
//     server and etcd; whatever still runs in the pods' cgroups is
//     killed;
//  4. everything mounted under D (and under the host paths the node
//     created) is unmounted, the pods' cgroups (/kubepods of every
//     hierarchy) removed, kube-proxy's and the CNI plugins' iptables
//     chains and rules and ours removed (kube-proxy --cleanup, then
//     whatever is still new since start), the bridge deleted, the
//     sysctls restored and the host paths the node created removed;
//  5. it checks nothing is left: a process, mount, cgroup or bridge
//     still there is an error, and the state file stays so that stop
//     can be run again.
//
// Every step runs even when an earlier one failed; the errors are
// joined. It works from D alone: after a crash of the harness that
// started the node, `kube-harness stop -dir D` does the same.
func stopNode(o options) error {
	st, err := readState(o.dir)
	if err != nil {
		return err
	}
	d := nodeDir(o.dir)
	var errs []error
	note := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	note(stopProc(o.dir, kcmName, o.timeout))
	note(stopProc(o.dir, schedulerName, o.timeout))
	note(deletePods(o))
	for _, name := range []string{kubeletName, proxyName, corednsName} {
		note(stopProc(o.dir, name, o.timeout))
	}
	note(killCgroupProcs())
	note(stopTasks(d))
	note(stopProc(o.dir, containerdName, o.timeout))
	note(killShims(d))
	note(stopAll(o))
	prefixes := cleanupPrefixes(o.dir, st)
	note(unmountUnder(prefixes))
	note(removeCgroups())
	note(removeRules(o, st))
	note(removeBridge())
	if st != nil {
		note(st.restoreSysctls())
		note(st.removeCreated())
	}
	note(leftovers(d, prefixes))
	if len(errs) > 0 {
		return fmt.Errorf("tear down the node in %s (run stop again once fixed): %w", o.dir, errors.Join(errs...))
	}
	if err := os.Remove(statePath(o.dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the node's state: %w", err)
	}
	return nil
}

// deletePods deletes every pod, with a second of grace, and waits (two
// minutes at most) until the kubelet has confirmed each deletion, which
// it does once the pod's containers are stopped and its volumes
// unmounted. It does nothing when the API server or the kubelet is not
// running (a crashed node): the forced steps after it clean up then.
func deletePods(o options) error {
	for _, name := range []string{apiserverName, kubeletName, containerdName} {
		if _, ok, _ := runningPid(o.dir, name); !ok {
			return nil
		}
	}
	cs, err := adminClientset(o.dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(o.timeout, 2*time.Minute))
	defer cancel()
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("delete the pods: list namespaces: %w", err)
	}
	for _, ns := range nss.Items {
		err := cs.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(1))}, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("delete the pods of %s: %w", ns.Name, err)
		}
	}
	for {
		pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err == nil && len(pods.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			left := "?"
			if err == nil {
				var names []string
				for _, p := range pods.Items {
					names = append(names, p.Namespace+"/"+p.Name)
				}
				left = strings.Join(names, " ")
			}
			// Not an error: the forced steps that follow clean up what
			// the kubelet did not; say so, since it is worth a look.
			fmt.Fprintf(os.Stderr, "kube-harness: the kubelet did not finish deleting every pod (%s); cleaning up by force\n", left)
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// stopTasks has containerd kill and delete every task still in its
// k8s.io namespace, so their shims exit and remove their sockets.
func stopTasks(d nodeDir) error {
	if _, ok, _ := runningPid(string(d), containerdName); !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := ctr(ctx, d.containerdSocket(), "-n", "k8s.io", "tasks", "ls", "-q")
	if err != nil {
		return fmt.Errorf("list containerd's tasks: %w", err)
	}
	for _, id := range strings.Fields(out) {
		_, _ = ctr(ctx, d.containerdSocket(), "-n", "k8s.io", "tasks", "kill", "-s", "SIGKILL", id)
		if _, err := ctr(ctx, d.containerdSocket(), "-n", "k8s.io", "tasks", "delete", "-f", id); err != nil {
			return fmt.Errorf("delete containerd's task %s: %w", id, err)
		}
	}
	return nil
}

// killShims kills the shims of this node's containerd that are still
// there (containerd stopped before its tasks were deleted).
func killShims(d nodeDir) error {
	pids := shimPids(d)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(shimPids(d)) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("containerd shims %v still run after SIGKILL", shimPids(d))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// shimPids are the live containerd shims whose command line names this
// node's containerd socket.
func shimPids(d nodeDir) []int {
	return findProcs(func(exe string, args []string) bool {
		if !strings.HasPrefix(filepath.Base(exe), "containerd-shim") {
			return false
		}
		for _, a := range args {
			if a == d.containerdSocket() {
				return true
			}
		}
		return false
	})
}

// findProcs lists the live, non-zombie processes match accepts.
func findProcs(match func(exe string, args []string) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid <= 0 {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		if match(strings.TrimSuffix(exe, " (deleted)"), strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")) && alive(pid, filepath.Base(strings.TrimSuffix(exe, " (deleted)"))) {
			out = append(out, pid)
		}
	}
	return out
}

// cgroupMounts are the mount points of every cgroup hierarchy (the v1
// controllers', name=systemd's and the unified one).
func cgroupMounts() ([]string, error) {
	mounts, err := readMounts()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range mounts {
		if m.fstype == "cgroup" || m.fstype == "cgroup2" {
			out = append(out, m.point)
		}
	}
	return out, nil
}

// podCgroups are the cgroup directories under /kubepods of every
// hierarchy, deepest first.
func podCgroups() ([]string, error) {
	roots, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, r := range roots {
		_ = filepath.WalkDir(filepath.Join(r, "kubepods"), func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
	}
	sort.Slice(dirs, func(i, j int) bool { return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/") })
	return dirs, nil
}

// killCgroupProcs kills every process in the pods' cgroups, until none
// is left (or 30 seconds pass).
func killCgroupProcs() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		dirs, err := podCgroups()
		if err != nil {
			return err
		}
		var pids []string
		for _, dir := range dirs {
			b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			if err == nil {
				pids = append(pids, strings.Fields(string(b))...)
			}
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still in the pods' cgroups after SIGKILL", pids)
		}
		for _, s := range pids {
			var pid int
			if _, err := fmt.Sscanf(s, "%d", &pid); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// removeCgroups removes the pods' cgroups, deepest first.
func removeCgroups() error {
	dirs, err := podCgroups()
	if err != nil {
		return err
	}
	var errs []error
	for _, dir := range dirs {
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

// cleanupPrefixes are where the node's mounts may be: under D, and at or
// under each host path the node created.
func cleanupPrefixes(dir string, st *hostState) []string {
	out := []string{dir + "/"}
	if st != nil {
		out = append(out, st.Absent...)
	}
	return out
}

func underAny(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
		if !strings.HasSuffix(p, "/") && (path == p || strings.HasPrefix(path, p+"/")) {
			return true
		}
	}
	return false
}

// unmountUnder unmounts every mount point under prefixes, deepest first,
// lazily when a plain unmount is refused, a few rounds over (mounts may
// be stacked).
func unmountUnder(prefixes []string) error {
	for round := 0; round < 5; round++ {
		points, err := mountsUnder(prefixes)
		if err != nil {
			return err
		}
		if len(points) == 0 {
			return nil
		}
		for _, p := range points {
			if err := syscall.Unmount(p, 0); err != nil {
				_ = syscall.Unmount(p, syscall.MNT_DETACH)
			}
		}
	}
	points, err := mountsUnder(prefixes)
	if err != nil {
		return err
	}
	if len(points) > 0 {
		return fmt.Errorf("still mounted after unmounting: %s", strings.Join(points, " "))
	}
	return nil
}

// mountsUnder lists the mount points under prefixes, deepest first.
func mountsUnder(prefixes []string) ([]string, error) {
	mounts, err := readMounts()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range mounts {
		if underAny(m.point, prefixes) {
			out = append(out, m.point)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, nil
}

// mount is one line of /proc/self/mountinfo.
type mount struct{ point, fstype string }

func readMounts() ([]mount, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %w", err)
	}
	var out []mount
	for _, line := range strings.Split(string(b), "\n") {
		// id parent major:minor root point options [optional...] - fstype source super
		f := strings.Fields(line)
		if len(f) < 7 {
			continue
		}
		m := mount{point: unescapeMount(f[4])}
		for i := 6; i < len(f)-1; i++ {
			if f[i] == "-" {
				m.fstype = f[i+1]
				break
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%3o", &c); err == nil {
				b.WriteByte(c)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeCreated removes the host paths the node created.
func (st *hostState) removeCreated() error {
	var errs []error
	for _, p := range st.Absent {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// leftovers is an error naming whatever of the node is still there.
func leftovers(d nodeDir, prefixes []string) error {
	var left []string
	for _, name := range nodeProcNames {
		if pid, ok, _ := runningPid(string(d), name); ok {
			left = append(left, fmt.Sprintf("process %s (pid %d)", name, pid))
		}
	}
	if pids := shimPids(d); len(pids) > 0 {
		left = append(left, fmt.Sprintf("containerd shims %v", pids))
	}
	if points, err := mountsUnder(prefixes); err != nil || len(points) > 0 {
		left = append(left, fmt.Sprintf("mounts %v (%v)", points, err))
	}
	if dirs, err := podCgroups(); err != nil || len(dirs) > 0 {
		left = append(left, fmt.Sprintf("cgroups %v (%v)", dirs, err))
	}
	if linkExists(bridgeName) {
		left = append(left, "bridge "+bridgeName)
	}
	if len(left) > 0 {
		return fmt.Errorf("left after teardown: %s", strings.Join(left, "; "))
	}
	return nil
}
