package main

import (
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

// TestEveryFlagDocumented: docs/configuration.md is the reference of the
// binary's flags, so each flag parseFlags registers has a row there.
func TestEveryFlagDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("sstable-flight", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	parseFlags(fs, []string{"-h"}) // registers every flag, then stops at -h
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(string(doc), "`--"+f.Name+" ") && !strings.Contains(string(doc), "`--"+f.Name+"`") {
			t.Errorf("flag --%s has no row in docs/configuration.md", f.Name)
		}
	})
	if n < 40 {
		t.Fatalf("saw %d flags: parseFlags registered fewer than expected", n)
	}
}
