package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
)

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
