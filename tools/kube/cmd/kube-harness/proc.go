package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one process the harness started: its pid file and log in the
// harness directory, and, while this command runs, the channel that
// closes when it exits.
type proc struct {
	name string
	pid  int
	done chan struct{}
	err  error // why it exited; set before done closes
}

func pidFile(dir, name string) string { return filepath.Join(dir, name+".pid") }
func logFile(dir, name string) string { return filepath.Join(dir, name+".log") }

// startProc starts bin in a session of its own (so a terminal's ^C or
// the end of `start` does not reach it), with its output in
// dir/name.log, and writes dir/name.pid.
func startProc(dir, name, bin string, args []string) (*proc, error) {
	log, err := os.OpenFile(logFile(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	defer log.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &proc{name: name, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := os.WriteFile(pidFile(dir, name), []byte(strconv.Itoa(p.pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("write %s pid file: %w", name, err)
	}
	return p, nil
}

// exited says whether p has exited, and how.
func (p *proc) exited() (bool, error) {
	select {
	case <-p.done:
		if p.err == nil {
			return true, fmt.Errorf("%s (pid %d) exited", p.name, p.pid)
		}
		return true, fmt.Errorf("%s (pid %d) exited: %w", p.name, p.pid, p.err)
	default:
		return false, nil
	}
}

// runningPid reads dir/name.pid and says whether that pid still runs a
// binary called name: a pid file left by a crashed harness may name a
// pid the kernel has since given to someone else's process, which must
// not be signalled.
func runningPid(dir, name string) (int, bool, error) {
	b, err := os.ReadFile(pidFile(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read %s pid file: %w", name, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false, fmt.Errorf("read %s pid file %s: %q is not a pid", name, pidFile(dir, name), b)
	}
	return pid, alive(pid, name), nil
}

// alive says whether pid is a live (not zombie) process whose
// executable is called name.
func alive(pid int, name string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil || filepath.Base(strings.TrimSuffix(exe, " (deleted)")) != name {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	return true
}

// stopProc stops what dir/name.pid names, if it still runs name:
// SIGTERM, then SIGKILL if it has not exited within grace. It removes
// the pid file once the process is gone.
func stopProc(dir, name string, grace time.Duration) error {
	pid, ok, err := runningPid(dir, name)
	if err != nil {
		return err
	}
	if ok {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stop %s (pid %d): %w", name, pid, err)
		}
		if !waitGone(pid, name, grace) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			if !waitGone(pid, name, 10*time.Second) {
				return fmt.Errorf("stop %s (pid %d): still running after SIGKILL", name, pid)
			}
		}
	}
	if err := os.Remove(pidFile(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s pid file: %w", name, err)
	}
	return nil
}

func waitGone(pid int, name string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive(pid, name) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

// logTail is the last lines of dir/name.log, for an error message.
func logTail(dir, name string, lines int) string {
	b, err := os.ReadFile(logFile(dir, name))
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
