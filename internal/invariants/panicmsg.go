package invariants

import "fmt"

// PanicMessage runs f and returns what it panicked with, "" when it
// returned: how a test sees a check fire (a double release's panic). A
// panic with a value that is not a string (a runtime error, say) returns
// that value printed, so it is never mistaken for no panic.
func PanicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			if msg, _ = r.(string); msg == "" {
				msg = fmt.Sprint(r)
			}
		}
	}()
	f()
	return ""
}
