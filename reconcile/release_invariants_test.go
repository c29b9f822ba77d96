//go:build invariants

package reconcile_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
)

// TestDoubleReleasePanics: in invariants builds a second Release of a
// merger panics, also after a later merge took the scratch the first
// Release pooled (the case a nil-table check alone would miss, releasing
// the later merge's scanners under it), and the rows a released merger
// returned read as poison.
func TestDoubleReleasePanics(t *testing.T) {
	c, err := corpus.Load(filepath.Join(corpusRoot(), "oa"))
	if err != nil {
		t.Fatal(err)
	}
	tbl := c.Tables["clustered"]
	readers, table := reconciletest.OpenTable(t, tbl)
	opts := reconcile.Options{Now: tbl.Expected.ReadAt}

	count := func(m *reconcile.Merger) int {
		n := 0
		for m.Next() {
			n++
		}
		if err := m.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	m, err := reconcile.New(table, readers, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := count(m)
	m.Release()
	if msg := invariants.PanicMessage(m.Release); !strings.Contains(msg, "released twice") {
		t.Fatalf("second Release: panic %q", msg)
	}

	// A point read's row, kept past Release: its key aliased a scanner
	// buffer, dead now.
	first, err := reconcile.New(table, readers, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Next() {
		t.Fatal("no row")
	}
	k := bytes.Clone(first.Row().Key)
	first.Release()
	p, err := reconcile.NewKey(table, readers, opts, k)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Next() {
		t.Fatal("no row by key")
	}
	key := p.Row().Key
	p.Release()
	if !invariants.Poisoned(key) {
		t.Fatalf("a released point read's key still reads %x", key)
	}

	// Released, then taken again by another merge: the stale Release
	// panics and the other merge reads on undisturbed.
	m, err = reconcile.New(table, readers, opts)
	if err != nil {
		t.Fatal(err)
	}
	m.Release()
	other, err := reconcile.New(table, readers, opts)
	if err != nil {
		t.Fatal(err)
	}
	if msg := invariants.PanicMessage(m.Release); !strings.Contains(msg, "released twice") {
		t.Fatalf("stale Release while another merge runs: panic %q", msg)
	}
	if n := count(other); n != want {
		t.Fatalf("the other merge read %d rows, want %d", n, want)
	}
	other.Release()
}
