package commitlog

import "github.com/sstable-flight/sstable-flight/sstable/compress"

// A compressed segment's sections are each one call of the compressor
// named in the header over the section's uncompressed bytes
// (CompressedSegment.write): no chunks, no checksum of their own (the
// entries inside carry CRCs). The payload is what each ICompressor's
// compress(ByteBuffer, ByteBuffer) writes:
//
//	LZ4Compressor      uint32 little-endian uncompressed length, then a raw LZ4 block
//	SnappyCompressor   a raw Snappy block (no framing)
//	DeflateCompressor  a zlib stream (java.util.zip.Deflater's defaults: header and Adler-32)
//	ZstdCompressor     one zstd frame
//
// These are the payloads of Data.db's chunks too: sstable/compress's
// Decoder, the one implementation, decodes both.
func newDecompressor(class string, maxLen int) (*compress.Decoder, bool) {
	return compress.NewDecoder(class, maxLen)
}
