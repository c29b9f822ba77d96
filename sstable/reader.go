package sstable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable/compress"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// Options configure Open.
type Options struct {
	// SkipCRC turns off per-chunk CRC32 verification of Data.db (on by
	// default: corrupt data must be an error, never wrong rows).
	SkipCRC bool
	// FS opens the component files; nil is the local file system.
	FS FS
	// ChunkCache, when set, keeps the Data.db chunks point reads (Get,
	// GetSlice) decompress, for later point reads of any reader sharing
	// it. Scans do not use it.
	ChunkCache *ChunkCache
	// KeyCache, when set, keeps the Data.db positions point reads find
	// in Index.db (BIG SSTables), for later point reads of the same key.
	KeyCache *KeyCache
	// IOGuard, when set, bounds every open and read of the components
	// through FS (guard.go): storage that never answers fails the read
	// with ErrStalled instead of blocking its caller for ever.
	IOGuard *IOGuard
	// Limits caps the components read whole (limits.go); zero fields
	// are the defaults.
	Limits Limits
}

// ChunkCache holds decompressed Data.db chunks within a byte budget.
type ChunkCache = compress.ChunkCache

// ChunkCacheStats are a chunk cache's counters.
type ChunkCacheStats = compress.ChunkCacheStats

// NewChunkCache returns a chunk cache of up to maxBytes.
func NewChunkCache(maxBytes int64) *ChunkCache { return compress.NewChunkCache(maxBytes) }

// Reader is one open SSTable.
type Reader struct {
	Desc       metadata.Descriptor
	Version    metadata.Version
	Components []string
	Stats      *metadata.Statistics
	Schema     *Schema

	dir      string
	fs       FS
	dataPath string
	data     dataSource
	idx      indexes
	closers  []io.Closer
	limits   Limits
	keys     *KeyCache // Options.KeyCache
	id       uint64    // the reader's entries in keys
}

// Open opens the SSTable that the given component file belongs to (any of
// its files, usually Data.db): it reads TOC.txt, Statistics.db and the
// compression metadata, Summary.db and Filter.db (BIG) or Partitions.db's
// footer (BTI), and opens Data.db. It does not read Index.db, the tries or
// Data.db: opening costs O(summary).
func Open(path string, opts Options) (_ *Reader, err error) {
	d, err := metadata.ParseDescriptor(filepath.Base(path))
	if err != nil {
		return nil, err
	}
	v, err := metadata.ParseVersion(d.Version, d.Format)
	if err != nil {
		return nil, err
	}
	r := &Reader{Desc: d, Version: v, dir: filepath.Dir(path), fs: guard(fsOrLocal(opts.FS), opts.IOGuard), limits: opts.Limits, keys: opts.KeyCache, id: readerIDs.Add(1)}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.Components, err = r.readTOC(); err != nil {
		return nil, err
	}
	stats, err := r.readSmall("Statistics.db")
	if err != nil {
		return nil, err
	}
	if r.Stats, err = metadata.ParseStatistics(stats, r.path("Statistics.db"), v); err != nil {
		return nil, err
	}
	if r.Schema, err = NewSchema(r.Stats.Header); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := r.openData(opts); err != nil {
		return nil, err
	}
	if err := r.openIndexes(); err != nil {
		return nil, err
	}
	return r, nil
}

// Murmur3 reports whether the SSTable was written with Murmur3Partitioner,
// the only partitioner whose tokens this reader computes. Others (the
// LocalPartitioner of system tables, the legacy Random and ByteOrdered
// partitioners) can be scanned, but token ranges and point lookups by
// token refuse them.
func (r *Reader) Murmur3() bool {
	return r.Stats.Partitioner == murmur3Partitioner
}

const murmur3Partitioner = "org.apache.cassandra.dht.Murmur3Partitioner"

// ErrPartitioner reports a token operation on an SSTable of another
// partitioner than Murmur3.
func (r *Reader) errPartitioner(op string) error {
	return fmt.Errorf("%s on %s: partitioner %s is not supported (Murmur3Partitioner only)", op, r.dataPath, snippet.QuoteN(r.Stats.Partitioner, 80))
}

func (r *Reader) path(component string) string {
	return filepath.Join(r.dir, r.Desc.Prefix()+"-"+component)
}

func (r *Reader) has(component string) bool {
	for _, c := range r.Components {
		if c == component {
			return true
		}
	}
	return false
}

func (r *Reader) readTOC() ([]string, error) {
	b, err := r.readSmall("TOC.txt")
	if err != nil {
		return nil, fmt.Errorf("read TOC: %w", err)
	}
	return metadata.ParseTOC(b, r.path("TOC.txt"))
}

func (r *Reader) readSmall(component string) ([]byte, error) {
	f, c, err := r.open(component)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return base.ReadAll(f, component, r.limits.of(component))
}

func (r *Reader) openData(opts Options) error {
	r.dataPath = r.path("Data.db")
	f, c, err := r.open("Data.db")
	if err != nil {
		return err
	}
	r.closers = append(r.closers, c)
	copts := compress.Options{SkipCRC: opts.SkipCRC, Cache: opts.ChunkCache}
	switch {
	case r.has("CompressionInfo.db"):
		b, err := r.readSmall("CompressionInfo.db")
		if err != nil {
			return err
		}
		info, err := compress.ParseInfo(b, r.path("CompressionInfo.db"), r.Version.MaxCompressedLength)
		if err != nil {
			return err
		}
		cr := compress.NewReader(f, info, copts)
		r.closers = append(r.closers, cr)
		r.data = cr
	case r.has("CRC.db") && !opts.SkipCRC:
		b, err := r.readSmall("CRC.db")
		if err != nil {
			return err
		}
		info, err := compress.ParseCRC(b, r.path("CRC.db"))
		if err != nil {
			return err
		}
		ur := compress.NewUncompressedReader(f, info, copts)
		if err := ur.CheckLength(); err != nil {
			return err
		}
		r.data = ur
	default:
		r.data = plainData{f}
	}
	return nil
}

type plainData struct{ base.Readable }

func (p plainData) DataLength() int64 { return p.Size() }

func (p plainData) ReadAtContext(ctx context.Context, b []byte, off int64) (int, error) {
	return base.ReadAt(ctx, p.Readable, b, off)
}

// Close releases the files.
func (r *Reader) Close() error {
	if r.keys != nil {
		r.keys.drop(r.id)
	}
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	r.closers = nil
	return errors.Join(errs...)
}
