package compress

import (
	"errors"
	"math"
	"math/bits"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/snippet"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

const infoComponent = "CompressionInfo.db"

// ErrUnknownCompressor marks a CompressionInfo.db naming a compressor class
// this package cannot decode. Such errors are also corruption errors: the
// file may be intact but written by a codec we do not know, or the name may
// be damaged; either way the data cannot be read.
var ErrUnknownCompressor = errors.New("unknown compressor class")

// maxChunkLength bounds the chunk length we accept. Cassandra caps
// chunk_length_in_kb far below this; the bound keeps a corrupt header from
// making us allocate gigabytes for one chunk.
const maxChunkLength = 1 << 30

// Info is the content of CompressionInfo.db.
type Info struct {
	File       string            // path of CompressionInfo.db, for error messages
	Compressor string            // class name as stored, e.g. "LZ4Compressor"
	Options    map[string]string // compressor options as stored
	// ChunkLength is the uncompressed size of every chunk but the last.
	ChunkLength int
	// MaxCompressedLength: a chunk whose compressed length is at least this
	// is stored raw. math.MaxInt32 when the format predates the field (3.x).
	MaxCompressedLength int
	DataLength          int64   // length of the uncompressed stream
	ChunkOffsets        []int64 // start of each chunk in the compressed Data.db
	// DataEnd, when > 0, is where the last chunk's CRC ends in Data.db.
	// Cassandra (3.0 flushes, 5.0 compactions) can record one offset more
	// than the data needs, for an empty trailing chunk; the chunks in use
	// end at that offset.
	DataEnd int64

	codec codecKind
}

// ParseInfo decodes CompressionInfo.db. file names it in errors;
// hasMaxCompressedLength is the SSTable version's MaxCompressedLength
// flag (metadata.Version): whether the file stores that field, as BIG
// files from na (4.0) on and BTI files do and 3.x files do not.
func ParseInfo(b []byte, file string, hasMaxCompressedLength bool) (*Info, error) {
	d := base.NewDecbuf(b, file, infoComponent, 0)
	info := &Info{File: file, MaxCompressedLength: math.MaxInt32}

	at := d.Pos()
	info.Compressor = d.UTF()
	if d.Err() == nil {
		kind, ok := codecFor(info.Compressor)
		if !ok {
			return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: %w %s", ErrUnknownCompressor, snippet.QuoteString(info.Compressor))
		}
		info.codec = kind
	}

	at = d.Pos()
	nopts := d.I32()
	// Each option is two writeUTF strings of at least 2 bytes each, so a
	// count larger than that is corrupt; checking first bounds the map.
	if d.Err() == nil && (nopts < 0 || int(nopts) > d.Len()/4) {
		return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: option count %d with %d bytes left", nopts, d.Len())
	}
	if nopts > 0 {
		info.Options = make(map[string]string, nopts)
		for range nopts {
			k := d.UTF()
			info.Options[k] = d.UTF()
		}
	}

	at = d.Pos()
	chunkLen := d.I32()
	if d.Err() == nil && (chunkLen <= 0 || chunkLen > maxChunkLength || bits.OnesCount32(uint32(chunkLen)) != 1) {
		return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: chunk length %d is not a positive power of two up to %d", chunkLen, maxChunkLength)
	}
	info.ChunkLength = int(chunkLen)

	if hasMaxCompressedLength {
		at = d.Pos()
		maxc := d.I32()
		// Cassandra stores MaxInt32 when min_compress_ratio is off and
		// otherwise rejects values above the chunk length.
		if d.Err() == nil && (maxc <= 0 || (maxc != math.MaxInt32 && maxc > chunkLen)) {
			return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: max compressed length %d out of range for %d-byte chunks", maxc, chunkLen)
		}
		info.MaxCompressedLength = int(maxc)
	}

	at = d.Pos()
	info.DataLength = d.I64()
	if d.Err() == nil && info.DataLength < 0 {
		return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: negative data length %d", info.DataLength)
	}

	at = d.Pos()
	count := d.I32()
	if err := d.Err(); err != nil {
		return nil, err
	}
	// The writer emits exactly one chunk per chunkLength bytes of data, the
	// last one possibly short; any other count means the header is damaged.
	want := (info.DataLength + int64(chunkLen) - 1) / int64(chunkLen)
	// NB: a writer may end with one empty chunk (seen from Cassandra 3.0
	// and from 5.0 compactions): one offset more than the data needs.
	extra := int64(count) == want+1
	if int64(count) != want && !extra {
		return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: chunk count %d, but data length %d in chunks of %d needs %d", count, info.DataLength, chunkLen, want)
	}
	if int64(d.Len()) != 8*int64(count) {
		return nil, base.Corruptf(file, infoComponent, d.Pos(), "parse CompressionInfo.db: %d chunk offsets need %d bytes, have %d", count, 8*int64(count), d.Len())
	}

	info.ChunkOffsets = make([]int64, count)
	prev := int64(-1)
	for i := range info.ChunkOffsets {
		at = d.Pos()
		off := d.I64()
		// Chunks are written back to back from offset 0, each followed by
		// a 4-byte CRC and holding at least one byte.
		switch {
		case i == 0 && off != 0:
			return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: first chunk offset %d, want 0", off)
		case i > 0 && off <= prev+4:
			return nil, base.Corruptf(file, infoComponent, at, "parse CompressionInfo.db: chunk %d offset %d leaves no room after chunk %d at %d", i, off, i-1, prev)
		}
		info.ChunkOffsets[i] = off
		prev = off
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	if extra {
		info.DataEnd = info.ChunkOffsets[count-1]
		info.ChunkOffsets = info.ChunkOffsets[:count-1]
	}
	return info, nil
}

// NumChunks is the number of chunks in Data.db.
func (info *Info) NumChunks() int { return len(info.ChunkOffsets) }

// shortName strips Cassandra's package from a compressor class name: the
// writer stores the simple name but the schema may spell the full one.
func shortName(class string) string {
	return strings.TrimPrefix(class, "org.apache.cassandra.io.compress.")
}
