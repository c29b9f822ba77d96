package sidecar_test

import (
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar"
	"github.com/sstable-flight/sstable-flight/snapshot/sidecar/sidecartest"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// The committed oa corpus is one keyspace, "corpus", in Cassandra's own
// layout; tests serve a copy of it, never the committed files.
const (
	corpusMode = "../../testdata/corpus/oa"
	keyspace   = "corpus"
)

// fixture is a fake Sidecar over a temporary copy of the corpus.
type fixture struct {
	dataDir string
	fake    *sidecartest.Server
	tables  map[string]string // table name → live table directory
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dataDir := t.TempDir()
	src := filepath.Join(corpusMode, keyspace)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{dataDir: dataDir, tables: map[string]string{}}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dst := filepath.Join(dataDir, keyspace, e.Name())
		corpus.CopyDir(t, filepath.Join(src, e.Name()), dst)
		name, _, _ := strings.Cut(e.Name(), "-")
		f.tables[name] = dst
	}
	if len(f.tables) < 10 {
		t.Fatalf("only %d corpus tables in %s", len(f.tables), src)
	}
	f.fake = sidecartest.New(dataDir)
	t.Cleanup(f.fake.Close)
	return f
}

func (f *fixture) client(opts sidecar.Options) *sidecar.Client {
	return f.fake.Client(opts)
}

// dataFiles are the Data.db files of a listing.
func dataFiles(files []sidecar.FileInfo) []sidecar.FileInfo {
	var out []sidecar.FileInfo
	for _, fi := range files {
		if strings.HasSuffix(fi.FileName, "-Data.db") {
			out = append(out, fi)
		}
	}
	return out
}

// scanSummary is what a full scan sees: partitions, unfiltereds, cells,
// the bytes of every key, clustering and cell value, and their CRC.
type scanSummary struct {
	partitions, unfiltereds, cells, valueBytes int64
	crc                                        uint32
}

func summarize(t *testing.T, r *sstable.Reader) scanSummary {
	t.Helper()
	var s scanSummary
	h := crc32.NewIEEE()
	sc := r.Scan()
	for sc.NextPartition() {
		s.partitions++
		h.Write(sc.Partition().Key)
		for sc.NextUnfiltered() {
			u := sc.Unfiltered()
			s.unfiltereds++
			for _, c := range u.Clustering {
				h.Write(c)
			}
			for _, c := range u.Cells {
				s.cells++
				s.valueBytes += int64(len(c.Value))
				h.Write(c.Path)
				h.Write(c.Value)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scan %s: %v", r.Desc.FileName(), err)
	}
	s.crc = h.Sum32()
	return s
}

// slowTransport delays every request, so concurrent readers of a block
// all arrive while its fetch is in flight; it also keeps the last
// request's headers.
type slowTransport struct {
	delay time.Duration
	mu    sync.Mutex
	last  http.Header
}

func (s *slowTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.last = r.Header.Clone()
	s.mu.Unlock()
	time.Sleep(s.delay)
	return http.DefaultTransport.RoundTrip(r)
}

// readAll reads a whole sstable.File through ReadAt.
func readAll(t *testing.T, f sstable.File) []byte {
	t.Helper()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		t.Fatalf("read %s: %v", f.Name(), err)
	}
	return b
}
