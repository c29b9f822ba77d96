// Package testclock is a settable clock for tests: a Now that moves only
// when the test moves it, so a test can cross a snapshot window, a grace
// period or a TTL in no real time, and only code that reads the injected
// clock (not the wall clock) sees the change. It is safe for concurrent
// use: servers read it from their own goroutines.
package testclock
