package sstable

import (
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
)

// VerifyDigest checks the whole Data.db file (as stored, compressed or
// not) against the CRC32 that Cassandra wrote to Digest.crc32. Chunk CRCs
// already guard every read; this whole-file check also covers bytes no
// read touches, which is what an operator wants before trusting a copy.
func (r *Reader) VerifyDigest() error {
	if !r.has("Digest.crc32") {
		return fmt.Errorf("verify %s: the TOC lists no Digest.crc32", r.dataPath)
	}
	b, err := r.readSmall("Digest.crc32")
	if err != nil {
		return fmt.Errorf("read digest: %w", err)
	}
	want, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return base.Corruptf(r.path("Digest.crc32"), "Digest.crc32", 0, "not a decimal CRC32: %q", b)
	}
	f, c, err := r.open("Data.db")
	if err != nil {
		return fmt.Errorf("open Data.db: %w", err)
	}
	defer c.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, f.Size())); err != nil {
		return fmt.Errorf("read Data.db: %w", err)
	}
	if got := h.Sum32(); uint64(got) != want {
		return base.Corruptf(r.dataPath, "Data.db", 0, "file CRC32 %d, Digest.crc32 says %d", got, want)
	}
	return nil
}
