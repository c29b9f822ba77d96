package metadata

import "testing"

func TestParseDescriptor(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Descriptor
	}{
		{"oa-3-big-Data.db", Descriptor{"oa", "3", "big", "Data.db"}},
		{"nb-12-big-TOC.txt", Descriptor{"nb", "12", "big", "TOC.txt"}},
		{"md-1-big-Digest.crc32", Descriptor{"md", "1", "big", "Digest.crc32"}},
		{"da-3gfh_0x2v_1s3a82g3v1bu1b6ogt-bti-Partitions.db", Descriptor{"da", "3gfh_0x2v_1s3a82g3v1bu1b6ogt", "bti", "Partitions.db"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDescriptor(tc.name)
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				return
			}
			if got != tc.want {
				t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
			}
			if got.FileName() != tc.name {
				t.Errorf("%s: FileName() = %s", tc.name, got.FileName())
			}
		})
	}
	for _, bad := range []string{"schema.cql", "oa-1-big", "oa-1-xyz-Data.db", "OA-1-big-Data.db", "oa--big-Data.db"} {
		if _, err := ParseDescriptor(bad); err == nil {
			t.Errorf("%s: parsed, want an error", bad)
		}
	}
}
