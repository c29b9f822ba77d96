package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// AwaitDataDir waits, at most wait, for the data directory dir to exist,
// polling every poll, and says whether it does. It waits only when dir
// is missing and its parent is a directory: Cassandra creates data/ on
// its volume when it first starts, and a server started beside it in the
// same pod must not exit (a crash loop) for being quicker. A missing
// parent is more likely a wrong path: it answers at once, and
// Config's check names the directory. waiting is called once, before
// the first wait.
func AwaitDataDir(ctx context.Context, dir string, wait, poll time.Duration, waiting func()) bool {
	deadline := time.Now().Add(wait)
	for first := true; ; first = false {
		st, err := os.Stat(dir)
		switch {
		case err == nil:
			return st.IsDir()
		case !errors.Is(err, fs.ErrNotExist):
			return false
		}
		if parent, err := os.Stat(filepath.Dir(dir)); err != nil || !parent.IsDir() || !time.Now().Before(deadline) {
			return false
		}
		if first && waiting != nil {
			waiting()
		}
		t := time.NewTimer(min(poll, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}
