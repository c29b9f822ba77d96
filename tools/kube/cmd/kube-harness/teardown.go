package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
