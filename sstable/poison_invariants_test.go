//go:build invariants

package sstable_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/invariants"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// wideReader opens the oa corpus' wide table, whose partitions are larger
// than a scan's buffer, so reading one refills the stream several times.
func wideReader(t *testing.T) *sstable.Reader {
	t.Helper()
	tbl := corpus.LoadEach(t)["oa"].Tables["wide"]
	r, err := sstable.Open(filepath.Join(tbl.Dir, tbl.SSTables[0].Prefix+"-Data.db"), sstable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRefillPoisonsStaleSlices: in invariants builds the clustering
// values of rows read before a refill turn to poison, and so does a
// previous partition's key, while the current row and the current
// partition's key never do.
func TestRefillPoisonsStaleSlices(t *testing.T) {
	s := wideReader(t).Scan()
	var stale, oldKeys [][]byte
	poisonedRows := 0
	for s.NextPartition() {
		key := s.Partition().Key
		want := bytes.Clone(key)
		for s.NextUnfiltered() {
			u := s.Unfiltered()
			if len(u.Clustering) == 0 || len(u.Clustering[0]) == 0 {
				continue
			}
			if invariants.Poisoned(u.Clustering[0]) {
				t.Fatalf("the current row's clustering is poison: %x", u.Clustering[0])
			}
			if !bytes.Equal(key, want) {
				t.Fatalf("partition key %x became %x while its rows were read", want, key)
			}
			kept := stale[:0]
			for _, v := range stale {
				if invariants.Poisoned(v) {
					poisonedRows++
				} else {
					kept = append(kept, v)
				}
			}
			stale = append(kept, u.Clustering[0])
		}
		oldKeys = append(oldKeys, key)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if poisonedRows == 0 {
		t.Fatal("no row kept past a refill read as poison")
	}
	poisonedKeys := 0
	for _, k := range oldKeys {
		if invariants.Poisoned(k) {
			poisonedKeys++
		}
	}
	if poisonedKeys == 0 {
		t.Fatalf("none of %d keys kept past their partition read as poison", len(oldKeys))
	}
	t.Logf("%d stale rows and %d of %d old keys poisoned", poisonedRows, poisonedKeys, len(oldKeys))
}

// TestScannerReleasePoisonsAndPanicsTwice: Release poisons what the
// scanner returned, and a second Release panics, also once a later Get
// took the scanner's buffers.
func TestScannerReleasePoisonsAndPanicsTwice(t *testing.T) {
	r := wideReader(t)
	parts := fullScan(t, r)
	g, err := r.Get(parts[0].key)
	if err != nil {
		t.Fatal(err)
	}
	if !g.NextPartition() || !g.NextUnfiltered() {
		t.Fatalf("get %x: nothing (%v)", parts[0].key, g.Err())
	}
	key, c := g.Partition().Key, g.Unfiltered().Clustering[0]
	g.Release()
	if !invariants.Poisoned(key) || !invariants.Poisoned(c) {
		t.Fatalf("after Release the key reads %x and the clustering %x", key, c)
	}
	if msg := invariants.PanicMessage(g.Release); !strings.Contains(msg, "released twice") {
		t.Fatalf("second Release: panic %q", msg)
	}

	a, err := r.Get(parts[1].key)
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
	b, err := r.Get(parts[1].key) // may take a's buffers
	if err != nil {
		t.Fatal(err)
	}
	if msg := invariants.PanicMessage(a.Release); !strings.Contains(msg, "released twice") {
		t.Fatalf("stale Release after another Get: panic %q", msg)
	}
	if !b.NextPartition() || !bytes.Equal(b.Partition().Key, parts[1].key) {
		t.Fatalf("the other Get lost its partition (%v)", b.Err())
	}
	b.Release()
}
