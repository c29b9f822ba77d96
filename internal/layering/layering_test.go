package layering

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sstable-flight/sstable-flight/"

// leaves are the standard-library-only helpers any package may import.
var leaves = []string{"internal/arrowsize", "internal/invariants", "internal/iostall", "internal/lru",
	"internal/safefile", "internal/secretfile", "internal/snippet", "internal/cassandrajvm"}

// below names, for each package (the longest prefix wins), the module
// packages its production code may import, besides leaves and its own
// sub-packages. "*" allows any: binaries, test harnesses and test-only
// packages sit at the top.
var below = []struct {
	pkg     string
	imports []string
}{
	{"token", nil},
	{"internal", nil}, // the leaves
	{"internal/secretfile", []string{"internal/safefile"}},
	{"sstable/internal/vint", nil},
	{"sstable/internal/base", []string{"sstable/internal/vint"}},
	{"sstable/marshal", []string{"sstable/internal/vint"}},
	{"sstable/internal/clustering", []string{"sstable/internal/base", "sstable/marshal"}},
	{"sstable/metadata", []string{"sstable/internal", "sstable/marshal"}},
	{"sstable/compress", []string{"sstable/internal/base"}},
	{"sstable/big", []string{"sstable/internal", "sstable/marshal", "token"}},
	{"sstable/bti", []string{"sstable/internal", "sstable/marshal", "token"}},
	{"sstable", []string{"sstable/", "token"}},
	{"sstable/dump", []string{"sstable", "token"}},
	{"sstable/writer", []string{"sstable", "sstable/marshal", "sstable/metadata", "token"}},
	{"commitlog", []string{"sstable", "token"}},
	{"overlay", []string{"commitlog", "sstable", "token"}},
	{"reconcile", []string{"sstable", "token"}},
	{"snapshot", []string{"sstable", "snapshot/"}},
	{"snapshot/sidecar", []string{"sstable"}},
	{"snapshot/txnlog", []string{"sstable/metadata"}},
	{"cluster", []string{"token"}},
	{"cluster/kube", []string{"cluster"}},
	{"flightserver/", []string{"flightserver/", "sstable", "reconcile", "snapshot", "cluster", "token", "overlay"}},
	{"flightserver", []string{"flightserver/", "sstable", "reconcile", "snapshot", "cluster", "token", "overlay"}},
	{"flightserver/fresh", []string{"flightserver/catalog", "commitlog", "overlay", "snapshot", "sstable"}},
	{"loadgen", nil},
	{"loadgen/testbed", []string{"loadgen"}},
	{"loadgen/flightbench", []string{"loadgen", "loadgen/testbed"}},
	{"loadgen/trinobench", []string{"loadgen", "loadgen/testbed"}},
	// Test harnesses and test-only packages.
	{"internal/testkit", []string{"*"}},
	{"reconcile/reconciletest", []string{"*"}},
	{"snapshot/sidecar/sidecartest", []string{"*"}},
	{"internal/layering", nil},
	{"deploy", []string{"*"}},
	{"cmd", []string{"*"}},
}

// rule returns the imports allowed to pkg: its longest matching entry's.
func rule(pkg string) (allowed []string, found bool) {
	best := -1
	for _, r := range below {
		if (pkg == strings.TrimSuffix(r.pkg, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(r.pkg, "/")+"/")) && len(r.pkg) > best {
			best, allowed, found = len(r.pkg), r.imports, true
		}
	}
	return allowed, found
}

func allowedImport(pkg, imp string, allowed []string) bool {
	if slices.Contains(leaves, imp) || strings.HasPrefix(imp, pkg+"/") {
		return true
	}
	for _, a := range allowed {
		if a == "*" || imp == strings.TrimSuffix(a, "/") && !strings.HasSuffix(a, "/") || strings.HasPrefix(imp, strings.TrimSuffix(a, "/")+"/") {
			return true
		}
	}
	return false
}

// TestImportsFlowDown: every module package's production imports are
// ones its line in below allows, and every package has a line.
func TestImportsFlowDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		allowed, ok := rule(pkg)
		if !ok {
			t.Errorf("%s: no line in the import rules (layering_test.go's below)", pkg)
			continue
		}
		n++
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if imp = strings.TrimPrefix(imp, module); !allowedImport(pkg, imp, allowed) {
				t.Errorf("%s imports %s: its rule allows only %v and the leaves", pkg, imp, allowed)
			}
		}
	}
	if n < 40 {
		t.Fatalf("checked %d packages: go list listed fewer than the module has", n)
	}
}
