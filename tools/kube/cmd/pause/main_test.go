package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPause runs the pause binary as PID 1 of a new PID namespace, as a
// pod sandbox that shares its process namespace has it, orphans a
// process into that namespace and checks pause reaps it once it exits,
// then that SIGTERM ends pause with status 0. Needs root (unshare,
// nsenter), as the node does.
func TestPause(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("must run as root: it makes a PID namespace")
		}
		t.Skip("must run as root: it makes a PID namespace")
	}
	bin := filepath.Join(t.TempDir(), "pause")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build pause: %v\n%s", err, out)
	}
	// unshare forks pause into the new namespace and waits for it.
	ns := exec.Command("unshare", "--pid", "--fork", bin)
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	defer ns.Process.Kill()
	var pause int
	waitUntil(t, "pause running", func() bool {
		pause = childOf(ns.Process.Pid)
		return pause > 0
	})
	// Killing unshare would leave pause running; killing PID 1 ends the
	// namespace. Only while pause runs: its pid may be reused after.
	defer func() {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pause)); exe == bin {
			_ = syscall.Kill(pause, syscall.SIGKILL)
		}
	}()
	// sh, entered into pause's namespace, starts a short sleep and exits
	// at once: the sleep is orphaned to the namespace's PID 1. (Its
	// output goes elsewhere, or nsenter's caller would wait for it.)
	if out, err := exec.Command("nsenter", "--target", fmt.Sprint(pause), "--pid", "--", "sh", "-c", "sleep 3 >/dev/null 2>&1 & exit 0").CombinedOutput(); err != nil {
		t.Fatalf("orphan a process to pause: %v\n%s", err, out)
	}
	if childOf(pause) == 0 {
		t.Fatal("the orphaned sleep is not pause's child")
	}
	waitUntil(t, "no child of pause left, zombie or not", func() bool { return childOf(pause) == 0 })
	if err := syscall.Kill(pause, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := ns.Wait(); err != nil {
		t.Fatalf("pause after SIGTERM: %v", err)
	}
}

// childOf is a child of pid (any state), or 0.
func childOf(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscanf(e.Name(), "%d", &p); err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat[i+1:]))
		var ppid int
		if len(f) > 1 {
			fmt.Sscanf(f[1], "%d", &ppid)
		}
		if ppid == pid {
			return p
		}
	}
	return 0
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
