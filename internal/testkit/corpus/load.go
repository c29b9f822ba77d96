package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ModeCorpus is one mode's corpus directory, loaded for checks and tests.
type ModeCorpus struct {
	Dir      string
	Manifest Manifest
	Tables   map[string]*CorpusTable // by table name
}

// CorpusTable is one exported table directory.
type CorpusTable struct {
	Name     string
	Dir      string // <mode>/<keyspace>/<table>-<id>
	Schema   string
	Expected Expected
	SSTables []SSTableFiles
}

// SSTableFiles is one SSTable: its descriptor prefix, component sizes and
// Cassandra's dump of its Data.db.
type SSTableFiles struct {
	Prefix     string           // e.g. oa-1-big
	Version    string           // e.g. oa
	Components map[string]int64 // component name (Data.db, Index.db, ...) → size
	Dump       []DumpPartition
}

// DumpPartition is the part of sstabledump's output the coverage checks read.
type DumpPartition struct {
	Partition struct {
		Key          []any           `json:"key"`
		DeletionInfo json.RawMessage `json:"deletion_info"`
	} `json:"partition"`
	Rows []map[string]any `json:"rows"`
}

// Load reads one mode's corpus directory (Out/<mode>).
func Load(dir string) (*ModeCorpus, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	c := &ModeCorpus{Dir: dir, Manifest: m, Tables: map[string]*CorpusTable{}}
	dirs, err := filepath.Glob(filepath.Join(dir, Keyspace, "*-*"))
	if err != nil {
		return nil, fmt.Errorf("list corpus tables: %w", err)
	}
	for _, d := range dirs {
		t, err := loadTable(d)
		if err != nil {
			return nil, err
		}
		if _, dup := c.Tables[t.Name]; dup {
			return nil, fmt.Errorf("load corpus %s: table %s exported twice", dir, t.Name)
		}
		c.Tables[t.Name] = t
	}
	return c, nil
}

func loadTable(dir string) (*CorpusTable, error) {
	base := filepath.Base(dir)
	t := &CorpusTable{Name: base[:strings.LastIndex(base, "-")], Dir: dir}
	schema, err := os.ReadFile(filepath.Join(dir, SchemaFile))
	if err != nil {
		return nil, fmt.Errorf("load corpus table: %w", err)
	}
	t.Schema = string(schema)
	b, err := os.ReadFile(filepath.Join(dir, ExpectedFile))
	if err != nil {
		return nil, fmt.Errorf("load corpus table: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&t.Expected); err != nil {
		return nil, fmt.Errorf("decode %s/%s: %w", dir, ExpectedFile, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list corpus table: %w", err)
	}
	byPrefix := map[string]*SSTableFiles{}
	for _, e := range entries {
		m := componentRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		prefix := m[1] + "-" + m[2] + "-" + m[3]
		st := byPrefix[prefix]
		if st == nil {
			st = &SSTableFiles{Prefix: prefix, Version: m[1], Components: map[string]int64{}}
			byPrefix[prefix] = st
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("stat sstable component: %w", err)
		}
		st.Components[m[4]] = info.Size()
	}
	for _, st := range byPrefix {
		if _, err := os.Stat(filepath.Join(dir, MetadataDir, st.Prefix+".txt")); err != nil {
			return nil, fmt.Errorf("load sstablemetadata report: %w", err)
		}
		out, err := os.ReadFile(filepath.Join(dir, DumpDir, st.Prefix+".json"))
		if err != nil {
			return nil, fmt.Errorf("load sstabledump output: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&st.Dump); err != nil {
			return nil, fmt.Errorf("decode %s/%s/%s.json: %w", dir, DumpDir, st.Prefix, err)
		}
		t.SSTables = append(t.SSTables, *st)
	}
	sort.Slice(t.SSTables, func(i, j int) bool { return t.SSTables[i].Prefix < t.SSTables[j].Prefix })
	return t, nil
}

// verifyComponents checks that every component the TOC lists is present
// and that Data.db matches the CRC32 Cassandra stored in Digest.crc32:
// the bytes are exactly what Cassandra wrote.
func (t *CorpusTable) verifyComponents(st SSTableFiles) error {
	toc, err := os.ReadFile(filepath.Join(t.Dir, st.Prefix+"-TOC.txt"))
	if err != nil {
		return fmt.Errorf("read TOC: %w", err)
	}
	for _, comp := range strings.Fields(string(toc)) {
		if _, ok := st.Components[comp]; !ok {
			return fmt.Errorf("%s/%s: TOC lists %s, which is missing", t.Dir, st.Prefix, comp)
		}
	}
	digest, err := os.ReadFile(filepath.Join(t.Dir, st.Prefix+"-Digest.crc32"))
	if err != nil {
		return fmt.Errorf("read digest: %w", err)
	}
	want, err := strconv.ParseUint(strings.TrimSpace(string(digest)), 10, 32)
	if err != nil {
		return fmt.Errorf("%s/%s: parse Digest.crc32: %w", t.Dir, st.Prefix, err)
	}
	data, err := os.ReadFile(filepath.Join(t.Dir, st.Prefix+"-Data.db"))
	if err != nil {
		return fmt.Errorf("read Data.db: %w", err)
	}
	if got := crc32.ChecksumIEEE(data); uint64(got) != want {
		return fmt.Errorf("%s/%s: Data.db CRC32 %d, Digest.crc32 says %d", t.Dir, st.Prefix, got, want)
	}
	return nil
}
