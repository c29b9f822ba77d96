// Package invariants switches on checks that only test builds pay for, as
// pebble's internal/invariants does: code guards them with
// `if invariants.Enabled`, a constant the invariants build tag sets
// (go test -tags invariants; make test's unit step builds so), and
// without the tag the compiler drops them, so the hot paths are the code
// they would be without the checks.
//
// The checks turn aliasing contracts that are otherwise comments
// ("valid until the next call", "dead after Release") into failures:
// memory a contract says is no longer valid is poisoned, filled with
// PoisonByte, so a reader that kept it sees garbage rather than
// plausible stale data, and a double release panics. docs/testing.md
// lists what each package poisons.
//
// It imports only the standard library and belongs to no layer of the
// data flow, so every package may import it, sstable included.
package invariants
