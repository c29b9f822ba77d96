package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

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
