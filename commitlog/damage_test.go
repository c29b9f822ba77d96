package commitlog_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// TestDamage flips bytes of real segments before their tail: each read,
// live or not, fails with a CorruptionError naming the segment, the
// component and the offset; the same damage in the last entry of a live
// segment is its torn tail.
func TestDamage(t *testing.T) {
	byName := map[string]fixture{}
	for _, f := range fixtures(t) {
		byName[f.Name] = f
	}
	path, seg := byName["v8-none"].dataSegment(t)
	full := readBytes(t, seg, path, commitlog.Options{})
	mid := len(full.entries) / 2
	entry, section := full.entries[mid], full.marks[mid].Marker
	for mid > 0 && full.marks[mid-1].Marker == section {
		mid-- // the section's first entry, so the flip hits its own
	}
	entry = full.entries[mid]
	hsize := full.header.Size
	cpath, cseg := byName["v8-zstd"].dataSegment(t)
	cfull := readBytes(t, cseg, cpath, commitlog.Options{})
	cmarker := cfull.marks[len(cfull.entries)/2].Marker

	cases := []struct {
		name      string
		path      string
		seg       []byte
		at        int64
		set       func(b []byte, at int64)
		component string
		offset    int64
		liveTorn  bool
	}{
		{"header CRC", path, seg, hsize - 1, flip, "header", hsize - 4, false},
		{"header id", path, seg, 11, flip, "header", hsize - 4, false},
		{"sync marker CRC", path, seg, section + 5, flip, "sync marker", section, false},
		{"entry size", path, seg, entry.Start + 2, flip, "entry size", entry.Start, false},
		{"entry size CRC", path, seg, entry.Start + 6, flip, "entry size", entry.Start, false},
		{"entry data", path, seg, entry.Start + 20, flip, "entry data", entry.Start, false},
		{"entry data CRC", path, seg, entry.Position.Offset - 1, flip, "entry data", entry.Start, false},
		{"last entry data", path, seg, full.entries[len(full.entries)-1].Start + 20, flip, "entry data", full.entries[len(full.entries)-1].Start, true},
		{"lying uncompressed length", cpath, cseg, cmarker + 8, func(b []byte, at int64) { b[at+3]++ }, "compressed section", cmarker, false},
		{"huge uncompressed length", cpath, cseg, cmarker + 8, func(b []byte, at int64) { binary.BigEndian.PutUint32(b[at:], 1<<31-1) }, "compressed section", cmarker + 8, false},
		{"compressed bytes", cpath, cseg, cmarker + 40, flip, "", -1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(tc.seg)
			tc.set(b, tc.at)
			for _, live := range []bool{false, true} {
				res := readBytes(t, b, tc.path, commitlog.Options{Live: live})
				if live && tc.liveTorn {
					if res.err != nil || res.torn == nil || res.torn.Component != tc.component || res.torn.Offset != tc.offset {
						t.Fatalf("live: err %v, torn tail %v; want a torn tail (%s at %d)", res.err, res.torn, tc.component, tc.offset)
					}
					continue
				}
				var ce *commitlog.CorruptionError
				if !errors.Is(res.err, commitlog.ErrCorruption) || !errors.As(res.err, &ce) {
					t.Fatalf("live %v: err %v, torn %v; want corruption", live, res.err, res.torn)
				}
				if ce.File != tc.path || (tc.component != "" && (ce.Component != tc.component || ce.Offset != tc.offset)) {
					t.Fatalf("live %v: %v; want %s, %s at %d", live, ce, tc.path, tc.component, tc.offset)
				}
				if !strings.Contains(res.err.Error(), tc.path) {
					t.Errorf("%v does not name the segment", res.err)
				}
				for i, e := range res.entries {
					if e.Position != full.entries[i].Position && e.Position != cfull.entries[i].Position {
						t.Fatalf("live %v: entry %d at %+v is not the whole segment's", live, i, e.Position)
					}
				}
			}
		})
	}
}

func flip(b []byte, at int64) { b[at] ^= 0x40 }

// header builds a segment: a header with these parameters and a valid
// CRC, then an all-zero sync marker.
func header(version int32, id int64, params string) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(version))
	b = binary.BigEndian.AppendUint64(b, uint64(id))
	b = binary.BigEndian.AppendUint16(b, uint16(len(params)))
	b = append(b, params...)
	var c [16]byte
	binary.BigEndian.PutUint32(c[0:], uint32(version))
	binary.BigEndian.PutUint32(c[4:], uint32(id))
	binary.BigEndian.PutUint32(c[8:], uint32(id>>32))
	binary.BigEndian.PutUint32(c[12:], uint32(len(params)))
	b = binary.BigEndian.AppendUint32(b, crc32.Update(crc32.ChecksumIEEE(c[:]), crc32.IEEETable, []byte(params)))
	return append(b, make([]byte, 8)...)
}

// TestHeaderRefusals: encrypted segments, versions before 3.0 and unknown
// compressors are refused with errors naming the segment, live or not;
// an empty segment (header and zero marker) has no entries.
func TestHeaderRefusals(t *testing.T) {
	const id = 1796652184405
	name := "/var/lib/cassandra/commitlog/CommitLog-8-1796652184405.log"
	cases := []struct {
		name string
		seg  []byte
		want error
	}{
		{"encrypted", header(8, id, `{"encCipher":"AES/CBC/PKCS5Padding","encIV":"00ff","encKeyAlias":"testing:1"}`), commitlog.ErrEncrypted},
		{"encrypted and compressed", header(8, id, `{"compressionClass":"LZ4Compressor","encCipher":"AES/CBC/PKCS5Padding","encKeyAlias":"k"}`), commitlog.ErrEncrypted},
		{"version 5", header(5, id, `{}`), commitlog.ErrUnsupportedVersion},
		{"version 9", header(9, id, `{}`), commitlog.ErrUnsupportedVersion},
		{"unknown compressor", header(8, id, `{"compressionClass":"org.example.Brotli"}`), commitlog.ErrUnknownCompressor},
		{"params not JSON", header(8, id, `{"compressionClass":`), commitlog.ErrCorruption},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, live := range []bool{false, true} {
				res := readBytes(t, tc.seg, name, commitlog.Options{Live: live})
				if !errors.Is(res.err, tc.want) || !strings.Contains(res.err.Error(), name) {
					t.Fatalf("live %v: %v; want %v naming the segment", live, res.err, tc.want)
				}
			}
		})
	}
	for _, params := range []string{`{}`, `{"compressionClass":"org.apache.cassandra.io.compress.ZstdCompressor","compressionParameters":{"compression_level":"3"}}`} {
		res := readBytes(t, header(8, id+1, params), name, commitlog.Options{})
		if res.err == nil {
			t.Fatalf("%s: the id differs from the file name's, yet no error", params)
		}
		res = readBytes(t, header(8, id, params), name, commitlog.Options{})
		if res.err != nil || len(res.entries) != 0 || res.torn != nil || res.header.MessagingVersion() != 13 {
			t.Fatalf("%s: an empty segment: %+v", params, res)
		}
	}
	// A live segment whose header is not written yet, or only in part,
	// is a torn tail; not live it is corruption.
	whole := header(8, id, `{}`)
	for _, seg := range [][]byte{make([]byte, 64), whole[:10], whole[:19]} {
		if res := readBytes(t, seg, name, commitlog.Options{Live: true}); res.err != nil || res.torn == nil || res.torn.Component != "header" {
			t.Fatalf("live, %x: %+v", seg, res)
		}
		if res := readBytes(t, seg, name, commitlog.Options{}); !errors.Is(res.err, commitlog.ErrCorruption) {
			t.Fatalf("not live, %x: %v", seg, res.err)
		}
	}
}
