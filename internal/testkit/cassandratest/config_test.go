package cassandratest

import (
	"strings"
	"testing"
)

// TestOverrideYAML: a key of ExtraYAML replaces the template's line and
// its indented block, and leaves every other line alone.
func TestOverrideYAML(t *testing.T) {
	base := "cluster_name: x\ncommitlog_sync: periodic\ncommitlog_sync_period: 10000ms\nseed_provider:\n  - class_name: S\n    parameters:\n      - seeds: \"a\"\nlisten_address: h\n"
	extra := "commitlog_sync: batch\nseed_provider:\n  - class_name: T\ncommitlog_compression:\n  - class_name: LZ4Compressor\n"
	got := overrideYAML(base, extra)
	want := "cluster_name: x\ncommitlog_sync_period: 10000ms\nlisten_address: h\n# Options.ExtraYAML\n" + extra
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if overrideYAML(base, "") != base {
		t.Error("no extra YAML changed the template")
	}
	if !strings.HasSuffix(overrideYAML(base, "a: 1"), "a: 1\n") {
		t.Error("extra YAML without a final newline")
	}
}
