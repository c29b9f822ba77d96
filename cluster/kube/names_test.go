package kube

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestNamesAsAPIMachinery: the Config's name checks agree with
// apimachinery's validation, which the API server applies, on names
// either side of each rule.
func TestNamesAsAPIMachinery(t *testing.T) {
	names := []string{
		"", "a", "z", "0", "9", "-", "a-", "-a", "a-b", "a--b", "ab9", "9ab", "A", "aB", "a_b", "a.b", "a b", "é",
		"flight", "grpc-tls", "http2", "1234", "x-1-y", strings.Repeat("a", 15), strings.Repeat("a", 16),
		strings.Repeat("a", 63), strings.Repeat("a", 64), "a" + strings.Repeat("0", 62), "0" + strings.Repeat("a", 62),
	}
	for _, n := range names {
		t.Run(strconv.Quote(n), func(t *testing.T) {
			for _, c := range []struct {
				what  string
				ours  error
				their []string
			}{
				{"DNS-1123 label (namespace)", checkName(n, 63, false), validation.IsDNS1123Label(n)},
				{"DNS-1035 label (service)", checkName(n, 63, true), validation.IsDNS1035Label(n)},
				{"IANA service name (port)", checkPortName(n), validation.IsValidPortName(n)},
			} {
				if (c.ours == nil) != (len(c.their) == 0) {
					t.Errorf("%s %q: ours %v, apimachinery's %v", c.what, n, c.ours, c.their)
				}
			}
		})
	}
}
