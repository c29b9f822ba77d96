package main_test

// The server's footprint at idle (issue #25): what the binary links, and
// its resident set a few seconds after start.

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// TestLinksNoKubernetesModule: the binary links no package of
// k8s.io's modules (client-go, apimachinery, api, klog). Linked, they
// cost the idle RSS whether discovery is on or off: client-go's
// clientset, whose scheme registers every API group at start, took it
// from 19.8 MiB to 37.7; a REST client of one API group still left
// 25.0, and client-go's dynamic client 23.7 (BenchmarkIdleRSS measures
// it). cluster/kube makes its two calls over net/http instead.
func TestLinksNoKubernetesModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for p := range strings.FieldsSeq(string(out)) {
		if strings.HasPrefix(p, "k8s.io/") {
			t.Errorf("the server links %s", p)
		}
	}
}

// idleAfter is when the idle resident set is read: the idle-RSS target
// of docs/PERFORMANCE.md is "ps -o rss 3 s after start".
const idleAfter = 3 * time.Second

// BenchmarkIdleRSS starts the server over the committed oa corpus
// (served in place), once per iteration (-benchtime Nx: N starts), and
// reads its /proc status idleAfter after the start, as ps -o rss would:
// idle-MiB is VmRSS, anon-MiB and file-MiB its anonymous part (heap,
// stacks) and its file-backed part (the pages of the binary mapped),
// each the median of the starts, idle-max-MiB the largest VmRSS;
// binary-MB is the executable's size. It reports and does not judge:
// what a shared machine's load does to one start is no verdict on the
// binary (make idle-rss runs five starts; TestLinksNoKubernetesModule
// guards, in every test run, against what once raised it by 5 MiB:
// linking Kubernetes' client modules).
//
// Before each start the binary's pages are dropped from the page cache,
// so each start reads it from disk as a container's first start does:
// the file-backed part depends on the page cache's state (the kernel
// maps up to 64 KiB around each page touched, of what the cache holds),
// and the same binary just written by the linker measured 2 MiB more
// than read back from disk.
func BenchmarkIdleRSS(b *testing.B) {
	bin := buildServer(b)
	fi, err := os.Stat(bin)
	if err != nil {
		b.Fatal(err)
	}
	var rss, anon, file []float64
	for b.Loop() {
		st := idleStatus(b, bin)
		rss = append(rss, mib(st.VmRSS))
		anon = append(anon, mib(st.RssAnon))
		file = append(file, mib(st.RssFile))
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(median(rss), "idle-MiB")
	b.ReportMetric(slices.Max(rss), "idle-max-MiB")
	b.ReportMetric(median(anon), "anon-MiB")
	b.ReportMetric(median(file), "file-MiB")
	b.ReportMetric(float64(fi.Size())/1e6, "binary-MB")
}

// idleStatus starts the server, reads its status idleAfter after the
// start (or at once if it took longer to serve), and kills it.
func idleStatus(b *testing.B, bin string) procfs.ProcStatus {
	b.Helper()
	if err := dropCached(bin); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	s := spawn(b, bin, nil, corpusArgs()...)
	defer func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	}()
	if !s.waitServing(b) {
		s.fatalf(b, "server exited before serving: %v", s.waitErr)
	}
	time.Sleep(time.Until(start.Add(idleAfter)))
	p, err := procfs.NewProc(s.cmd.Process.Pid)
	if err != nil {
		s.fatalf(b, "read the server's /proc: %v", err)
	}
	st, err := p.NewStatus()
	if err != nil {
		s.fatalf(b, "read the server's /proc status: %v", err)
	}
	return st
}

// dropCached asks the kernel to drop the file's pages from the page
// cache, written back first: the pages of a file just linked are dirty,
// and only clean pages that no process maps are dropped.
func dropCached(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s back: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("drop %s from the page cache: %w", path, err)
	}
	return nil
}

func mib(bytes uint64) float64 { return float64(bytes) / (1 << 20) }

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}
