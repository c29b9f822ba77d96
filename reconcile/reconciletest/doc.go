// Package reconciletest opens corpus tables (internal/testkit/corpus) for the
// tests that reconcile them: reconcile's own differential tests and
// arrowenc's round trip; TableOf builds a reconcile.Table from SSTables'
// headers alone, for tests and benchmarks without a schema. It is a package of its own, not part of
// internal/testkit/corpus, because the corpus is also loaded by the tests inside
// package sstable, which a corpus that imported sstable would make an
// import cycle.
package reconciletest
