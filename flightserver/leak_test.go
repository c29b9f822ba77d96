package flightserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

// TestErrorsShowNoFileContentNorServerPaths is issue #15's finding 6
// through the server: a TOC.txt that is a copy of a secret, a component
// linked out of the data directory, a 64 GiB schema.cql and a 64 GiB
// Statistics.db of a new SSTable each fail the scan with a status that
// names the file relative to the data directory and shows nothing of
// the secret, no absolute path and no link target outside; the huge
// files are refused unread. Before, the TOC's first line came back
// quoted, every message held the absolute path of the data or snapshot
// directory, and either huge file killed the process (out of memory).
func TestErrorsShowNoFileContentNorServerPaths(t *testing.T) {
	const secret = "password = hunter2-do-not-show\n"
	outside := t.TempDir()
	secretFile := filepath.Join(outside, "secret.conf")
	must(t, os.WriteFile(secretFile, []byte(secret), 0o600))
	const victim = "oa-3-big"
	for _, c := range []struct {
		name, file string // file: what the message must name, under the table dir
		damage     func(t *testing.T, dir string)
		code       codes.Code
	}{
		{"TOC.txt a copy of a secret", victim + "-TOC.txt", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, victim+"-TOC.txt"), []byte(secret), 0o644))
		}, codes.DataLoss},
		{"Data.db a link out of the data dir", victim + "-Data.db", func(t *testing.T, dir string) {
			remove(victim+"-Data.db")(t, dir)
			must(t, os.Symlink(secretFile, filepath.Join(dir, victim+"-Data.db")))
		}, codes.FailedPrecondition},
		{"schema.cql of 64 GiB", "schema.cql", func(t *testing.T, dir string) {
			must(t, os.Truncate(filepath.Join(dir, "schema.cql"), 64<<30))
		}, codes.FailedPrecondition},
		{"a new SSTable's Statistics.db of 64 GiB", "oa-4-big-Statistics.db", func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(dir, victim+"-*"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				must(t, err)
				must(t, os.WriteFile(strings.Replace(f, victim, "oa-4-big", 1), b, 0o644))
			}
			must(t, os.Truncate(filepath.Join(dir, "oa-4-big-Statistics.db"), 64<<30))
		}, codes.DataLoss},
	} {
		for _, mode := range []snapshot.Mode{snapshot.Hardlink, snapshot.Live} {
			t.Run(string(mode)+"/"+c.name, func(t *testing.T) {
				ts, dir := timestampsServer(t, mode)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if _, err := scanRows(ctx, ts, "corpus", "timestamps"); err != nil {
					t.Fatalf("intact table: %v", err)
				}
				c.damage(t, dir)
				time.Sleep(5 * time.Millisecond) // past the window
				_, err := scanRows(ctx, ts, "corpus", "timestamps")
				msg := status.Convert(err).Message()
				rel := "corpus/" + filepath.Base(dir) + "/" + c.file
				if status.Code(err) != c.code || !strings.Contains(msg, rel) {
					t.Fatalf("scan: %v; want %v naming %s", err, c.code, rel)
				}
				data := filepath.Dir(filepath.Dir(dir)) // <data>/corpus/<table dir>
				root := filepath.Dir(data)              // holds the data and the snapshot directories
				for _, leak := range []string{"hunter2", data, root, outside} {
					if strings.Contains(msg, leak) {
						t.Fatalf("the message shows %q: %s", leak, msg)
					}
				}
				t.Log(msg)
			})
		}
	}
}
