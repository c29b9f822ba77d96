package metadata_test

import (
	"slices"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// TestVersions holds the list to what ParseVersion's flags assume: within
// a format, versions oldest first, so in name order (the flags compare
// names); each accepted in its format and refused in the other.
func TestVersions(t *testing.T) {
	for format, names := range metadata.Versions {
		t.Run(format, func(t *testing.T) {
			if !slices.IsSorted(names) {
				t.Errorf("%v: not in name order", names)
			}
			for _, name := range names {
				v, err := metadata.ParseVersion(name, format)
				if err != nil {
					t.Errorf("ParseVersion(%q, %q): %v", name, format, err)
				}
				if v.BTI != (format == "bti") {
					t.Errorf("ParseVersion(%q, %q): BTI %t", name, format, v.BTI)
				}
				for other := range metadata.Versions {
					if _, err := metadata.ParseVersion(name, other); other != format && err == nil {
						t.Errorf("ParseVersion(%q, %q) accepted a %s version", name, other, format)
					}
				}
			}
		})
	}
	if _, err := metadata.ParseVersion("oa", "trie"); err == nil {
		t.Error("ParseVersion accepted an unknown format")
	}
}
