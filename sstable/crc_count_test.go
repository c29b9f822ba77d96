package sstable_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestCRCCountAsCassandraWrites checks the number of checksums CRC.db may
// hold for an uncompressed Data.db. Cassandra 3.x appends the checksum of
// the empty buffer its last flush writes (CRC32 of no bytes, 00000000), so
// a CRC.db with one checksum more than Data.db has chunks is what it
// writes and must read as the original (as must more such checksums: each
// is a flush that wrote nothing); a checksum past the data that is not of
// an empty buffer, or one checksum too few, is a truncated Data.db or
// CRC.db and must be a corruption error naming CRC.db and the checksum's
// offset.
func TestCRCCountAsCassandraWrites(t *testing.T) {
	corpora := corpus.LoadEach(t)
	for _, mode := range corpus.Modes {
		tbl := corpora[mode].Tables["comp_none"]
		t.Run(mode+"/"+tbl.Name, func(t *testing.T) {
			st := tbl.SSTables[0]
			want, err := outcome(filepath.Join(tbl.Dir, st.Prefix+"-Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			crc, err := os.ReadFile(filepath.Join(tbl.Dir, st.Prefix+"-CRC.db"))
			if err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				name    string
				crc     []byte
				corrupt bool
				offset  int64
			}{
				{"one empty-buffer checksum appended", binary.BigEndian.AppendUint32(append([]byte{}, crc...), 0), false, 0},
				{"two empty-buffer checksums appended", binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(append([]byte{}, crc...), 0), 0), false, 0},
				{"a checksum of data appended", binary.BigEndian.AppendUint32(append([]byte{}, crc...), 0xdeadbeef), true, int64(len(crc))},
				{"one checksum short", crc[:len(crc)-4], true, int64(len(crc) - 4)},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					dir := copyCorpusSSTable(t, tbl, st)
					crcPath := filepath.Join(dir, st.Prefix+"-CRC.db")
					if err := os.WriteFile(crcPath, tc.crc, 0o644); err != nil {
						t.Fatal(err)
					}
					got, err := outcome(filepath.Join(dir, st.Prefix+"-Data.db"))
					if !tc.corrupt {
						if err != nil {
							t.Fatalf("read: %v", err)
						}
						if got != want {
							t.Fatal("read differs from the original SSTable")
						}
						return
					}
					var ce *sstable.CorruptionError
					if !errors.Is(err, sstable.ErrCorruption) || !errors.As(err, &ce) {
						t.Fatalf("want a corruption error, got %v", err)
					}
					if ce.File != crcPath || ce.Component != "CRC.db" || ce.Offset != tc.offset {
						t.Fatalf("error names %s (%s) at %d, want %s (CRC.db) at %d: %v", ce.File, ce.Component, ce.Offset, crcPath, tc.offset, err)
					}
					if !strings.Contains(err.Error(), crcPath) {
						t.Fatalf("message does not name the file: %v", err)
					}
				})
			}
		})
	}
}
