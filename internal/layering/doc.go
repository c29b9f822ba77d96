// Package layering holds no code: its test is the import rules of
// docs/architecture.md, checked against what every package of the module
// imports (go list), so that a wrong import fails the build's tests
// instead of waiting for a reviewer. The rules are the table in
// layering_test.go; a new package gets a line there.
package layering
