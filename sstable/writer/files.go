package writer

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/sstable-flight/sstable-flight/sstable"
)

// Files is where a Writer puts the components it writes: Create returns
// a writer for one file, named as Cassandra names it ("oa-1-big-Data.db");
// the Writer closes it once the component is complete.
type Files interface {
	Create(name string) (io.WriteCloser, error)
}

// Dir writes the components as files of a directory, which must exist.
type Dir string

// Create creates (or truncates) the file name in the directory.
func (d Dir) Create(name string) (io.WriteCloser, error) {
	f, err := os.Create(filepath.Join(string(d), name))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	return f, nil
}

// Memory holds the components in memory, and is an sstable.FS over them,
// so that sstable.Open reads the SSTable without touching a disk: open
// any path whose base name is one of its files (the directory is
// ignored). Safe for concurrent use.
type Memory struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{files: map[string][]byte{}} }

// Create starts the file name; it appears once closed.
func (m *Memory) Create(name string) (io.WriteCloser, error) {
	return &memFile{m: m, name: name}, nil
}

type memFile struct {
	m    *Memory
	name string
	buf  bytes.Buffer
}

func (f *memFile) Write(p []byte) (int, error) { return f.buf.Write(p) }

func (f *memFile) Close() error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	f.m.files[f.name] = f.buf.Bytes()
	return nil
}

// File returns the bytes of the file name, and whether it exists.
func (m *Memory) File(name string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[name]
	return b, ok
}

// Names lists the files, sorted.
func (m *Memory) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.files))
	for n := range m.files {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Open implements sstable.FS.
func (m *Memory) Open(path string) (sstable.File, io.Closer, error) {
	name := filepath.Base(path)
	b, ok := m.File(name)
	if !ok {
		return nil, nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
	return memReader{Reader: bytes.NewReader(b), name: path}, nopCloser{}, nil
}

type memReader struct {
	*bytes.Reader
	name string
}

func (r memReader) Name() string { return r.name }

var _ sstable.FS = (*Memory)(nil)

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
