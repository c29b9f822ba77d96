package testbed

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Header says when, where, on which commit and with which command
// and data a benchmark record was taken: a figure without these is not a
// measurement (docs/PERFORMANCE.md).
type Header struct {
	Date        time.Time `json:"date"`
	CPU         string    `json:"cpu"`
	Cores       int       `json:"cores"`
	MemoryBytes int64     `json:"memory_bytes"`
	GoVersion   string    `json:"go_version"`
	Commit      string    `json:"commit"`
	Cassandra   string    `json:"cassandra"`
	Command     string    `json:"command"`
	Dataset     Dataset   `json:"dataset"`
	Load        string    `json:"load"` // steps, warm-up, ramps, seed, server flags
}

// Machine fills the header's machine and build fields.
func Machine(ctx context.Context, now time.Time) Header {
	h := Header{Date: now.UTC(), Cores: runtime.NumCPU(), GoVersion: runtime.Version(), CPU: "unknown", Commit: "unknown"}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		h.CPU = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64); err == nil {
			h.MemoryBytes = kb << 10
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		h.Commit = strings.TrimSpace(string(out))
	}
	return h
}

// procField is the value of the first "key : value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
