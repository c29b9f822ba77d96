package flightserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestTruncatedFilterIsNoCrash is issue #15's finding 5: Filter.db and
// Summary.db were memory-mapped, so truncating one in place while a
// server held it open killed the process with SIGBUS on the next key
// read that touched a page past the new end, in both snapshot modes (a
// hard link shares the inode the live name truncates). Every key read
// after the truncation must be an error of that request or the correct
// rows; the test process must survive. Before the fix the test binary
// died with "unexpected fault address" / SIGBUS.
func TestTruncatedFilterIsNoCrash(t *testing.T) {
	for _, mode := range []snapshot.Mode{snapshot.Hardlink, snapshot.Live} {
		t.Run(string(mode), func(t *testing.T) {
			ts, dir := timestampsServer(t, mode)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			queries := keyQueries("corpus", "timestamps", "p", 1, 2, 3, 99)
			want := map[string]string{}
			for _, q := range queries {
				rows, err := queryRows(ctx, ts, q.desc)
				if err != nil {
					t.Fatalf("%s on the intact table: %v", q.name, err)
				}
				want[q.name] = rows
			}
			if !strings.Contains(want["key p=2"], "v=newer than partition delete") {
				t.Fatalf("key p=2 on the intact table:\n%s", want["key p=2"])
			}
			for _, c := range []string{"Filter.db", "Summary.db"} {
				files, _ := filepath.Glob(filepath.Join(dir, "*-"+c))
				for _, f := range files {
					must(t, os.Truncate(f, 0))
				}
			}
			time.Sleep(5 * time.Millisecond) // past the window
			for _, q := range queries {
				rows, err := queryRows(ctx, ts, q.desc)
				if err == nil && rows != want[q.name] {
					t.Fatalf("%s after Filter.db and Summary.db were truncated: OK with rows\n%swant\n%s", q.name, rows, want[q.name])
				}
				t.Logf("%s: %v", q.name, err)
			}
		})
	}
}
