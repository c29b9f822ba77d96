package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// The heap, as cassandra-env.sh sizes it. The image runs G1 (as
// Cassandra 5.0's jvm17-server.options does), for which cassandra-env.sh
// passes MAX_HEAP_SIZE as -Xms and -Xmx and leaves HEAP_NEWSIZE unused
// (-Xmn would override G1's pause-time goal); HEAP_NEWSIZE is still
// checked, so a typo in a chart's value fails here rather than never.

var sizeRE = regexp.MustCompile(`^[0-9]+[kKmMgG]?$`)

// heapSize is -Xmx's value: MAX_HEAP_SIZE, or cassandra-env.sh's formula
// max(min(1/2 memory, 1024 MB), min(1/4 memory, 8192 MB)) over the
// memory the container may use (memLimitMB).
func heapSize(lookup lookupFunc, memLimitMB func() (int64, error)) (string, error) {
	if v, ok := lookup("HEAP_NEWSIZE"); ok && v != "" && !sizeRE.MatchString(v) {
		return "", fmt.Errorf("HEAP_NEWSIZE=%q: want a size such as 128M", v)
	}
	if v, ok := lookup("MAX_HEAP_SIZE"); ok && v != "" {
		if !sizeRE.MatchString(v) {
			return "", fmt.Errorf("MAX_HEAP_SIZE=%q: want a size such as 512M or 2G", v)
		}
		return v, nil
	}
	mem, err := memLimitMB()
	if err != nil {
		return "", fmt.Errorf("size the heap (MAX_HEAP_SIZE unset): %w", err)
	}
	half, quarter := min(mem/2, 1024), min(mem/4, 8192)
	return strconv.FormatInt(max(half, quarter), 10) + "M", nil
}

// memoryLimitMB is the smaller of the machine's memory (what `free`
// reports to cassandra-env.sh) and the container's cgroup limit, which
// cassandra-env.sh does not read but a pod's memory limit enforces.
func memoryLimitMB() (int64, error) {
	total, err := memTotalMB("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n/(1<<20) < total {
			return n / (1 << 20), nil
		}
	}
	return total, nil
}

func memTotalMB(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read the memory size: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("read MemTotal in %s: %w", path, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("no MemTotal in %s", path)
}
