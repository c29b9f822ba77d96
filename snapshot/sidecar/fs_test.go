package sidecar_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/dump"
)

// TestScanThroughSidecarMatchesLocal snapshots every table of the corpus
// copy and opens every SSTable of every snapshot through the client's
// FS: the scan (counts, value bytes, their CRC) and the sstabledump-style
// output are those of the same SSTable opened locally.
func TestScanThroughSidecarMatchesLocal(t *testing.T) {
	f := newFixture(t)
	c := f.client(sidecar.Options{BlockSize: 16 << 10})
	ctx := context.Background()
	total := 0
	cases := corpus.NewCases(t)
	for _, table := range slices.Sorted(maps.Keys(f.tables)) {
		dir := f.tables[table]
		cases.Run("oa/"+table, func(t *testing.T) {
			if err := c.CreateSnapshot(ctx, keyspace, table, "scan"); err != nil {
				t.Fatal(err)
			}
			files, err := c.ListSnapshot(ctx, keyspace, table, "scan")
			if err != nil {
				t.Fatal(err)
			}
			sfs := c.FS(keyspace, table, "scan")
			for _, data := range dataFiles(files) {
				name := table + "/" + data.FileName
				local, err := sstable.Open(filepath.Join(dir, data.FileName), sstable.Options{})
				if err != nil {
					t.Fatalf("%s: open local: %v", name, err)
				}
				remote, err := sstable.Open(data.FileName, sstable.Options{FS: sfs})
				if err != nil {
					t.Fatalf("%s: open through sidecar: %v", name, err)
				}
				if got, want := summarize(t, remote), summarize(t, local); got != want {
					t.Errorf("%s: scan through sidecar %+v, local %+v", name, got, want)
				}
				var got, want bytes.Buffer
				if err := dump.Write(&got, remote, dump.Options{}); err != nil {
					t.Fatalf("%s: dump through sidecar: %v", name, err)
				}
				if err := dump.Write(&want, local, dump.Options{}); err != nil {
					t.Fatalf("%s: dump local: %v", name, err)
				}
				if got.String() != want.String() {
					t.Errorf("%s: dump through sidecar differs from the local one", name)
				}
				local.Close()
				if err := remote.Close(); err != nil {
					t.Errorf("%s: close: %v", name, err)
				}
				total++
			}
		})
	}
	// A floor on the whole corpus: it holds only when every table ran.
	if cases.All() && total < 20 {
		t.Errorf("only %d SSTables read", total)
	}
	for _, r := range f.fake.Requests() {
		if strings.Contains(r.Path, "/components/") && (r.Range == "" || r.Status != http.StatusPartialContent && r.Status != http.StatusOK) {
			t.Errorf("component request %+v: want a Range answered 206 or 200", r)
		}
	}
	st := c.Stats()
	if st.RangeRequests == 0 || st.CacheHits == 0 || st.BytesFetched == 0 {
		t.Errorf("stats %+v: no range requests or cache hits", st)
	}
	t.Logf("%d SSTables; %+v", total, st)
}

// TestDigestNotStreamable: Sidecar streams only *.db and *TOC.txt
// components, so VerifyDigest through it fails with Sidecar's 400, not
// with a wrong answer.
func TestDigestNotStreamable(t *testing.T) {
	f := newFixture(t)
	c := f.client(sidecar.Options{})
	if err := c.CreateSnapshot(context.Background(), keyspace, "wide", "d"); err != nil {
		t.Fatal(err)
	}
	r, err := sstable.Open("oa-1-big-Data.db", sstable.Options{FS: c.FS(keyspace, "wide", "d")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var se *sidecar.StatusError
	if err := r.VerifyDigest(); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Errorf("VerifyDigest through sidecar: %v, want a 400 StatusError", err)
	}
}

// openData opens one snapshot's Data.db of the wide table (the corpus's
// largest) through a client with the given options, with its local copy.
func openData(t *testing.T, f *fixture, opts sidecar.Options, snapshot string) (*sidecar.Client, sstable.File, []byte) {
	t.Helper()
	c := f.client(opts)
	if err := c.CreateSnapshot(context.Background(), keyspace, "wide", snapshot); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	file, closer, err := c.FS(keyspace, "wide", snapshot).Open("oa-1-big-Data.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closer.Close() })
	want, err := os.ReadFile(filepath.Join(f.tables["wide"], "oa-1-big-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	if file.Size() != int64(len(want)) {
		t.Fatalf("size %d, file has %d", file.Size(), len(want))
	}
	return c, file, want
}

// TestBlockCache: reading a file twice sends its blocks' requests once;
// a cache too small for the file evicts and stays within its budget;
// deleting the snapshot drops its blocks.
func TestBlockCache(t *testing.T) {
	f := newFixture(t)
	const bs = 4 << 10
	t.Run("second read is cached", func(t *testing.T) {
		c, file, want := openData(t, f, sidecar.Options{BlockSize: bs}, "twice")
		blocks := (file.Size() + bs - 1) / bs
		if !bytes.Equal(readAll(t, file), want) {
			t.Fatal("first read differs from the file")
		}
		first := c.Stats()
		f.fake.ResetRequests()
		if !bytes.Equal(readAll(t, file), want) {
			t.Fatal("second read differs from the file")
		}
		second := c.Stats()
		if first.RangeRequests != blocks || second.RangeRequests != blocks || len(f.fake.Requests()) != 0 {
			t.Errorf("%d blocks: %d range requests after one read, %d after two, %d requests served for the second",
				blocks, first.RangeRequests, second.RangeRequests, len(f.fake.Requests()))
		}
		if second.CacheHits-first.CacheHits < blocks || second.CachedBytes != file.Size() || second.CachedBlocks != blocks {
			t.Errorf("stats after two reads %+v", second)
		}
	})
	t.Run("eviction", func(t *testing.T) {
		c, file, want := openData(t, f, sidecar.Options{BlockSize: bs, CacheBytes: 3 * bs}, "small")
		for range 2 {
			if !bytes.Equal(readAll(t, file), want) {
				t.Fatal("read differs from the file")
			}
		}
		st := c.Stats()
		blocks := (file.Size() + bs - 1) / bs
		if st.CachedBytes > 3*bs || st.CachedBlocks > 3 || st.Evictions < 2*blocks-3 || st.RangeRequests != 2*blocks {
			t.Errorf("cache of 3 blocks, file of %d: %+v", blocks, st)
		}
	})
	t.Run("delete drops blocks", func(t *testing.T) {
		c, file, _ := openData(t, f, sidecar.Options{BlockSize: bs}, "again")
		buf := make([]byte, 100)
		if _, err := file.ReadAt(buf, 0); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteSnapshot(context.Background(), keyspace, "wide", "again"); err != nil {
			t.Fatal(err)
		}
		if st := c.Stats(); st.CachedBlocks != 0 {
			t.Errorf("%d blocks cached after the snapshot was deleted", st.CachedBlocks)
		}
		if _, err := file.ReadAt(buf, 0); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("read from a deleted snapshot: %v, want fs.ErrNotExist", err)
		}
	})
}

// TestReadAtEdges: reads at the end of the file, across it and past it,
// empty reads, and reads across block boundaries behave as io.ReaderAt
// requires and return the file's bytes.
func TestReadAtEdges(t *testing.T) {
	f := newFixture(t)
	const bs = 1000 // not a divisor of the file size: the last block is short
	c, file, want := openData(t, f, sidecar.Options{BlockSize: bs}, "edges")
	size := int64(len(want))
	if size%bs == 0 {
		t.Fatalf("file size %d is a multiple of the block size", size)
	}
	last := size / bs * bs
	cases := []struct {
		name    string
		off     int64
		n       int
		wantN   int
		wantEOF bool
	}{
		{"first byte", 0, 1, 1, false},
		{"across a block boundary", bs - 10, 20, 20, false},
		{"across several blocks", bs/2 + 3, 3*bs + 7, 3*bs + 7, false},
		{"last partial block exactly", last, int(size - last), int(size - last), false},
		{"last byte", size - 1, 1, 1, false},
		{"across the end", size - 5, 10, 5, true},
		{"whole file and more", 0, int(size) + 100, int(size), true},
		{"at the end", size, 10, 0, true},
		{"past the end", size + 1000, 10, 0, true},
		{"empty at the start", 0, 0, 0, false},
		{"empty past the end", size + 10, 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := c.Stats().RangeRequests
			p := make([]byte, tc.n)
			n, err := file.ReadAt(p, tc.off)
			if n != tc.wantN || (err == io.EOF) != tc.wantEOF || err != nil && err != io.EOF {
				t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; want %d, EOF %v", tc.n, tc.off, n, err, tc.wantN, tc.wantEOF)
			}
			if n > 0 && !bytes.Equal(p[:n], want[tc.off:tc.off+int64(n)]) {
				t.Errorf("bytes differ from the file")
			}
			if tc.n == 0 && c.Stats().RangeRequests != before {
				t.Errorf("an empty read sent a request")
			}
		})
	}
	if _, err := file.ReadAt(make([]byte, 1), -1); err == nil || err == io.EOF {
		t.Errorf("negative offset: %v, want an error", err)
	}
	for _, r := range f.fake.Requests() {
		if strings.Contains(r.Path, "/components/") && r.Range == fmt.Sprintf("bytes=%d-%d", last, size-1) && r.Status != http.StatusPartialContent {
			t.Errorf("last block: %+v", r)
		}
	}

	// An empty file is read without a request: Sidecar would answer 416.
	empty := c.FSWithListing(keyspace, "wide", "edges", []sidecar.FileInfo{{FileName: "oa-9-big-Filter.db", Table: "wide"}})
	ef, _, err := empty.Open("oa-9-big-Filter.db")
	if err != nil {
		t.Fatal(err)
	}
	before := c.Stats().Requests
	if n, err := ef.ReadAt(make([]byte, 4), 0); n != 0 || err != io.EOF || c.Stats().Requests != before {
		t.Errorf("empty file: %d, %v after %d requests", n, err, c.Stats().Requests-before)
	}
}

// TestFakeRanges: the fake answers Range requests as Sidecar does.
func TestFakeRanges(t *testing.T) {
	f := newFixture(t)
	c := f.client(sidecar.Options{})
	if err := c.CreateSnapshot(context.Background(), keyspace, "wide", "r"); err != nil {
		t.Fatal(err)
	}
	snapDir := filepath.Join(f.tables["wide"], "snapshots", "r")
	want, err := os.ReadFile(filepath.Join(snapDir, "oa-1-big-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snapDir, "oa-9-big-Empty.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	size := len(want)
	route := f.fake.URL + "/api/v1/keyspaces/corpus/tables/wide/snapshots/r/components/"
	cases := []struct {
		rng, file   string
		status      int
		body        []byte
		contentRnge string
	}{
		{"", "oa-1-big-Data.db", 200, want, ""},
		{"bytes=0-", "oa-1-big-Data.db", 200, want, ""},
		{fmt.Sprintf("bytes=0-%d", size+100), "oa-1-big-Data.db", 200, want, ""},
		{"bytes=10-19", "oa-1-big-Data.db", 206, want[10:20], fmt.Sprintf("bytes 10-19/%d", size)},
		{"bytes=-10", "oa-1-big-Data.db", 206, want[size-10:], fmt.Sprintf("bytes %d-%d/%d", size-10, size-1, size)},
		{fmt.Sprintf("bytes=%d-", size-3), "oa-1-big-Data.db", 206, want[size-3:], fmt.Sprintf("bytes %d-%d/%d", size-3, size-1, size)},
		{fmt.Sprintf("bytes=%d-%d", size-3, size+10), "oa-1-big-Data.db", 206, want[size-3:], fmt.Sprintf("bytes %d-%d/%d", size-3, size-1, size)},
		{fmt.Sprintf("bytes=%d-", size), "oa-1-big-Data.db", 416, nil, ""},
		{fmt.Sprintf("bytes=%d-%d", size+5, size+10), "oa-1-big-Data.db", 416, nil, ""},
		{"bytes=20-10", "oa-1-big-Data.db", 416, nil, ""},
		{"bytes=-", "oa-1-big-Data.db", 416, nil, ""},
		{"bytes=-0", "oa-1-big-Data.db", 416, nil, ""},
		{"bytes=0-1,4-5", "oa-1-big-Data.db", 416, nil, ""},
		{"items=0-1", "oa-1-big-Data.db", 416, nil, ""},
		{"", "oa-9-big-Empty.db", 416, nil, ""},
		{"bytes=0-10", "oa-8-big-Data.db", 404, nil, ""},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(http.MethodGet, route+tc.file, nil)
		if tc.rng != "" {
			req.Header.Set("Range", tc.rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %q: %s, want %d", tc.file, tc.rng, resp.Status, tc.status)
			continue
		}
		if tc.body != nil && !bytes.Equal(body, tc.body) {
			t.Errorf("%s %q: %d bytes, not the range's %d", tc.file, tc.rng, len(body), len(tc.body))
		}
		if got := resp.Header.Get("Content-Range"); got != tc.contentRnge {
			t.Errorf("%s %q: Content-Range %q, want %q", tc.file, tc.rng, got, tc.contentRnge)
		}
	}
}

// TestConcurrentReaders reads several files from many goroutines through
// one client with a cache smaller than the files (run with -race): every
// read returns the file's bytes. Readers of one missing block all wait
// for a single request.
func TestConcurrentReaders(t *testing.T) {
	f := newFixture(t)
	const bs = 2 << 10
	c := f.client(sidecar.Options{BlockSize: bs, CacheBytes: 24 * bs})
	ctx := context.Background()
	type target struct {
		file sstable.File
		want []byte
	}
	var targets []target
	for _, table := range []string{"wide", "many", "clustered", "all_types"} {
		if err := c.CreateSnapshot(ctx, keyspace, table, "conc"); err != nil {
			t.Fatal(err)
		}
		files, err := c.ListSnapshot(ctx, keyspace, table, "conc")
		if err != nil {
			t.Fatal(err)
		}
		sfs := c.FS(keyspace, table, "conc")
		for _, fi := range files {
			if !strings.HasSuffix(fi.FileName, ".db") {
				continue
			}
			file, _, err := sfs.Open(fi.FileName)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(f.tables[table], fi.FileName))
			if err != nil {
				t.Fatal(err)
			}
			targets = append(targets, target{file, want})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range 300 {
				tg := targets[rng.IntN(len(targets))]
				size := int64(len(tg.want))
				if size == 0 {
					continue
				}
				off := rng.Int64N(size)
				p := make([]byte, 1+rng.IntN(3*bs))
				n, err := tg.file.ReadAt(p, off)
				if err != nil && err != io.EOF || !bytes.Equal(p[:n], tg.want[off:off+int64(n)]) || n < len(p) && off+int64(n) != size {
					errs <- fmt.Errorf("%s: ReadAt(%d at %d) = %d, %v", tg.file.Name(), len(p), off, n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := c.Stats(); st.CachedBytes > 24*bs || st.CacheHits == 0 || st.Evictions == 0 {
		t.Errorf("stats %+v", st)
	}

	// One block, many readers at once, a slow server: one request.
	slow := &slowTransport{delay: 100 * time.Millisecond}
	sc := f.fake.Client(sidecar.Options{HTTPClient: &http.Client{Transport: slow}, BlockSize: bs, BearerToken: "tok"})
	file, _, err := sc.FS(keyspace, "wide", "conc").Open("oa-1-big-Data.db")
	if err != nil {
		t.Fatal(err)
	}
	start := make(chan struct{})
	for range 20 {
		wg.Go(func() {
			<-start
			if _, err := file.ReadAt(make([]byte, 100), 10); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if st := sc.Stats(); st.RangeRequests != 1 || st.CacheMisses != 1 || st.SharedFetches+st.CacheHits != 19 {
		t.Errorf("20 readers of one block: %+v, want one request", st)
	}
	if got := slow.last.Get("Authorization"); got != "Bearer tok" {
		t.Errorf("Authorization %q, want the bearer token", got)
	}
}

// TestThrottled: 429 answers are retried as Retry-After says, up to
// Retries times, then returned.
func TestThrottled(t *testing.T) {
	f := newFixture(t)
	c, file, want := openData(t, f, sidecar.Options{BlockSize: 1 << 20}, "thr")
	f.fake.Throttle(2)
	if !bytes.Equal(readAll(t, file), want) {
		t.Fatal("read differs from the file")
	}
	if st := c.Stats(); st.Retries != 2 {
		t.Errorf("%d retries, want 2", st.Retries)
	}
	c2, file2, _ := openData(t, f, sidecar.Options{BlockSize: 1 << 20, Retries: 1}, "thr")
	f.fake.Throttle(5)
	var se *sidecar.StatusError
	if _, err := file2.ReadAt(make([]byte, 10), 0); !errors.As(err, &se) || se.Code != http.StatusTooManyRequests {
		t.Errorf("read while throttled: %v, want a 429 StatusError", err)
	}
	if st := c2.Stats(); st.Retries != 1 {
		t.Errorf("%d retries, want 1", st.Retries)
	}
	f.fake.Throttle(0)
}
