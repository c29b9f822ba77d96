package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// Manifest records how one mode's corpus was made (MANIFEST.json).
type Manifest struct {
	CassandraVersion string   `json:"cassandra_version"`
	StorageMode      string   `json:"storage_mode"`
	SSTableVersions  []string `json:"sstable_versions"` // the version letters Cassandra actually wrote
	Scale            string   `json:"scale"`
	GeneratedAt      string   `json:"generated_at"`
	Command          string   `json:"command"`
}

// ManifestFile is the name of the manifest in each mode directory.
const ManifestFile = "MANIFEST.json"

func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// ReadManifest reads dir/MANIFEST.json.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return m, fmt.Errorf("read manifest: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("decode manifest %s: %w", dir, err)
	}
	return m, nil
}

// dataFileRE matches Cassandra's SSTable file names:
// <version>-<generation>-<format>-<component>, e.g. oa-3-big-Data.db,
// da-3gfh_0x2v_1s3a82g3v1bu1b6ogt-bti-Data.db.
var dataFileRE = regexp.MustCompile(`^([a-z]{2})-([0-9a-z_]+)-(big|bti)-Data\.db$`)

// componentRE matches any SSTable component file name.
var componentRE = regexp.MustCompile(`^([a-z]{2})-([0-9a-z_]+)-(big|bti)-([A-Za-z0-9]+\.(?:db|txt|crc32))$`)

func versionsOf(jobs []dumpJob) []string {
	set := map[string]bool{}
	for _, j := range jobs {
		if m := dataFileRE.FindStringSubmatch(filepath.Base(j.data)); m != nil {
			set[m[1]] = true
		}
	}
	var out []string
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
