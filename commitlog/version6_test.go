package commitlog_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
)

// TestVersion6Segments: the harness runs Cassandra 5.0 only, so 3.0 and
// 3.11 segments (commit log version 6, mutations at messaging version
// 10) are built from their documented layout (docs/commitlog-notes.md,
// "3.x / 4.x differences"): a version 7 fixture whose header says 6, its
// CRC recomputed, the same sections and entries. It reads whole, says
// versions 6 and 10, and every mutation decodes at messaging version 10
// into the same updates as at 12.
func TestVersion6Segments(t *testing.T) {
	n := 0
	for _, f := range fixtures(t) {
		if !strings.HasPrefix(f.Name, "v7-") {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			path, b := f.dataSegment(t)
			v6 := bytes.Clone(b)
			binary.BigEndian.PutUint32(v6, 6)
			plen := int(binary.BigEndian.Uint16(v6[12:]))
			var fixed [16]byte
			binary.BigEndian.PutUint32(fixed[0:], 6)
			copy(fixed[4:8], v6[8:12]) // the id's low 32 bits, then its high ones
			copy(fixed[8:12], v6[4:8])
			binary.BigEndian.PutUint32(fixed[12:], uint32(plen))
			crc := crc32.Update(crc32.ChecksumIEEE(fixed[:]), crc32.IEEETable, v6[14:14+plen])
			binary.BigEndian.PutUint32(v6[14+plen:], crc)
			name := filepath.Join(filepath.Dir(path), strings.Replace(filepath.Base(path), "CommitLog-7-", "CommitLog-6-", 1))

			want := readBytes(t, b, path, commitlog.Options{})
			got := readBytes(t, v6, name, commitlog.Options{})
			if got.err != nil || got.header.Version != 6 || got.header.MessagingVersion() != 10 {
				t.Fatalf("version 6 segment: %v, header %+v (messaging %d)", got.err, got.header, got.header.MessagingVersion())
			}
			if len(got.entries) != len(want.entries) || len(got.entries) == 0 {
				t.Fatalf("%d entries, the version 7 segment has %d", len(got.entries), len(want.entries))
			}
			id, err := commitlog.ParseTableID(f.TableID)
			if err != nil {
				t.Fatal(err)
			}
			dec := commitlog.NewDecoder(commitlog.SchemaMap{id: fixtureSchema()})
			decoded := 0
			for i, e := range got.entries {
				if e.Position != want.entries[i].Position || !bytes.Equal(e.Mutation, want.entries[i].Mutation) {
					t.Fatalf("entry %d: %+v, want %+v", i, e.Position, want.entries[i].Position)
				}
				u10, err10 := decodeAll(dec, e.Mutation, 10)
				u12, err12 := decodeAll(dec, e.Mutation, 12)
				if (err10 == nil) != (err12 == nil) || !reflect.DeepEqual(u10, u12) {
					t.Fatalf("entry %d at messaging 10: %v, %v; at 12: %v, %v", i, u10, err10, u12, err12)
				}
				if err10 == nil {
					decoded++
				}
			}
			if decoded != f.Entries {
				t.Errorf("%d entries of the table decoded, want %d", decoded, f.Entries)
			}
		})
	}
	if n == 0 {
		t.Fatal("no version 7 fixture to build version 6 segments from")
	}
}
