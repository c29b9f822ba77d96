package big

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable/internal/base"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
	"github.com/sstable-flight/sstable-flight/token"
)

// sstable is one Cassandra-written SSTable of the corpus.
type sstable struct {
	name    string // "<mode>/<table>/<prefix>": its subtest's name
	prefix  string // path without "-Index.db" etc.
	version string
	table   string
	dump    string // sstabledump JSON, "" when absent
}

func (s sstable) path(component string) string { return s.prefix + "-" + component }

func (s sstable) read(t testing.TB, component string) []byte {
	t.Helper()
	b, err := os.ReadFile(s.path(component))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (s sstable) opts(mode PromotedMode) IndexOptions {
	return IndexOptions{UIntDeletionTime: s.version >= "oa", ClusteringTypes: clusteringTypes[s.table], Promoted: mode}
}

func (s sstable) parseFilter(b []byte) (*Filter, error) {
	if s.version < "na" {
		return ParseOldFilter(b, s.path("Filter.db"))
	}
	return ParseFilter(b, s.path("Filter.db"))
}

// clusteringTypes per corpus table, from its schema.cql.
var clusteringTypes = map[string][]*marshal.Type{}

func init() {
	const m = "org.apache.cassandra.db.marshal."
	for table, names := range map[string][]string{
		"wide": {"Int32Type"}, "deletions": {"Int32Type"}, "timestamps": {"Int32Type"}, "ttls": {"Int32Type"},
		"comp_deflate": {"Int32Type"}, "comp_lz4": {"Int32Type"}, "comp_lz4_4k": {"Int32Type"},
		"comp_none": {"Int32Type"}, "comp_snappy": {"Int32Type"}, "comp_zstd": {"Int32Type"},
		"counters":  {"UTF8Type"},
		"clustered": {"Int32Type", "ReversedType(" + m + "UTF8Type)", "TimestampType"},
	} {
		for _, n := range names {
			typ, err := marshal.Parse(m + n)
			if err != nil {
				panic(err)
			}
			clusteringTypes[table] = append(clusteringTypes[table], typ)
		}
	}
}

// corpusTables lists the 4.x/5.0 corpus SSTables that have an Index.db.
func corpusTables(t testing.TB) []sstable {
	t.Helper()
	files, err := filepath.Glob("../../testdata/corpus/*/corpus/*/*-big-Index.db")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus Index.db files (%v)", err)
	}
	var out []sstable
	for _, f := range files {
		prefix := strings.TrimSuffix(f, "-Index.db")
		dir := filepath.Dir(f)
		name := filepath.Base(prefix)
		s := sstable{name: corpus.SSTableCase(f), prefix: prefix, version: name[:2], table: filepath.Base(dir)[:strings.LastIndexByte(filepath.Base(dir), '-')]}
		if d := filepath.Join(dir, "sstabledump", name+".json"); fileExists(d) {
			s.dump = d
		}
		out = append(out, s)
	}
	return out
}

// publicTables lists the read-only 3.x fixtures (ma..md), which have no dump.
func publicTables(t testing.TB) []sstable {
	// shared/ lies beside the repository, on developer machines and in CI.
	const root = "../../../shared/fixtures/public"
	files, _ := filepath.Glob(root + "/*/*/*/m?-*-big-Index.db")
	more, _ := filepath.Glob(root + "/*/m?-*-big-Index.db")
	var out []sstable
	for _, f := range append(files, more...) {
		prefix := strings.TrimSuffix(f, "-Index.db")
		// Named by its path below root, table directories without their id.
		rel, err := filepath.Rel(root, prefix)
		if err != nil {
			t.Fatal(err)
		}
		name := tableID.ReplaceAllString(filepath.ToSlash(rel), "/")
		out = append(out, sstable{name: name, prefix: prefix, version: filepath.Base(prefix)[:2]})
	}
	if len(out) == 0 {
		t.Fatal("no 3.x fixtures under " + root + ": shared/ must be beside the repository")
	}
	return out
}

// tableID is the id Cassandra appends to a table's directory name.
var tableID = regexp.MustCompile(`-[0-9a-f]{32}/`)

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// entry is an Index.db entry copied out of the reader's buffer.
type entry struct {
	pos      int64 // in Index.db
	key      []byte
	data     int64
	promoted int
	header   int64
	deletion DeletionTime
	blocks   []IndexInfo
}

func readIndex(t testing.TB, s sstable, mode PromotedMode) []entry {
	t.Helper()
	b := s.read(t, "Index.db")
	it := NewIndexReader(context.Background(), base.BytesReadable{B: b, Path: s.path("Index.db")}, 0, s.opts(mode))
	var out []entry
	for it.Next() {
		e := it.Entry()
		out = append(out, entry{pos: it.Pos(), key: bytes.Clone(e.Key), data: e.DataPosition, promoted: e.PromotedSize,
			header: e.HeaderLength, deletion: e.PartitionDeletion, blocks: cloneBlocks(e.Blocks)})
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", s.prefix, err)
	}
	return out
}

// cloneBlocks deep-copies blocks, whose values alias the reader's buffers.
func cloneBlocks(blocks []IndexInfo) []IndexInfo {
	out := make([]IndexInfo, len(blocks))
	for i, b := range blocks {
		out[i] = b
		out[i].First.Values = clonePrefix(b.First.Values)
		out[i].Last.Values = clonePrefix(b.Last.Values)
	}
	return out
}

func clonePrefix(vs [][]byte) [][]byte {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		if v != nil {
			out[i] = append([]byte{}, v...)
		}
	}
	return out
}

// renderKey renders a serialized partition key the way sstabledump does.
func renderKey(table string, key []byte) []string {
	switch {
	case table == "many" && len(key) == 8:
		return []string{strconv.FormatInt(int64(binary.BigEndian.Uint64(key)), 10)}
	case table == "clustered":
		var parts []string
		for i := 0; len(key) > 0 && i < 2; i++ {
			if len(key) < 2 {
				return []string{"bad composite"}
			}
			n := int(binary.BigEndian.Uint16(key))
			if len(key) < 2+n+1 {
				return []string{"bad composite"}
			}
			c := key[2 : 2+n]
			if i == 0 {
				parts = append(parts, string(c))
			} else {
				parts = append(parts, strconv.Itoa(int(int32(binary.BigEndian.Uint32(c)))))
			}
			key = key[2+n+1:]
		}
		return parts
	case len(key) == 4:
		return []string{strconv.Itoa(int(int32(binary.BigEndian.Uint32(key))))}
	}
	return []string{"unrendered " + string(key)}
}

type dumpPartition struct {
	Partition struct {
		Key      []string `json:"key"`
		Position int64    `json:"position"`
	} `json:"partition"`
}

// TestIndexMatchesDump: Index.db holds exactly the partitions Cassandra's
// sstabledump lists, in its order, and their data positions are a strictly
// increasing sequence from 0.
func TestIndexMatchesDump(t *testing.T) {
	checked := 0
	cases := corpus.NewCases(t)
	for _, s := range corpusTables(t) {
		if s.dump == "" {
			continue
		}
		cases.Run(s.name, func(t *testing.T) {
			raw, err := os.ReadFile(s.dump)
			if err != nil {
				t.Fatal(err)
			}
			var dump []dumpPartition
			if err := json.Unmarshal(raw, &dump); err != nil {
				t.Fatalf("%s: %v", s.dump, err)
			}
			entries := readIndex(t, s, PromotedFull)
			if len(entries) != len(dump) {
				t.Errorf("%s: %d index entries, dump has %d partitions", s.prefix, len(entries), len(dump))
				return
			}
			for i, e := range entries {
				got, want := renderKey(s.table, e.key), dump[i].Partition.Key
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("%s entry %d: key %q, dump says %q", s.prefix, i, got, want)
				}
				if i == 0 && e.data != 0 {
					t.Errorf("%s: first data position %d", s.prefix, e.data)
				}
				if i > 0 && e.data <= entries[i-1].data {
					t.Errorf("%s entry %d: data position %d after %d", s.prefix, i, e.data, entries[i-1].data)
				}
				if i > 0 && token.CompareDecorated(token.Of(entries[i-1].key), entries[i-1].key, token.Of(e.key), e.key) >= 0 {
					t.Errorf("%s entry %d: key not after the previous in token order", s.prefix, i)
				}
				// The dump's position lies inside the partition: after its
				// start and before the next partition's.
				if p := dump[i].Partition.Position; p < e.data || i+1 < len(entries) && p >= entries[i+1].data {
					t.Errorf("%s entry %d: dump position %d outside [%d, next)", s.prefix, i, p, e.data)
				}
			}
			checked++
		})
	}
	// A floor on the whole corpus: it holds only when every SSTable ran.
	if cases.All() && checked < 40 {
		t.Errorf("checked only %d SSTables against their dumps", checked)
	}
}

// TestWidePromotedIndex: the wide table's partitions (300 rows each, 4 KiB
// index blocks) carry promoted indexes whose blocks tile the partition.
func TestWidePromotedIndex(t *testing.T) {
	seen := 0
	for _, s := range corpusTables(t) {
		if s.table != "wide" {
			continue
		}
		entries := readIndex(t, s, PromotedFull)
		if len(entries) != 3 {
			continue // the small second SSTable
		}
		seen++
		for i, e := range entries {
			if e.promoted == 0 || len(e.blocks) < 4 {
				t.Fatalf("%s partition %d: promoted %d bytes, %d blocks", s.prefix, i, e.promoted, len(e.blocks))
			}
			if !e.deletion.Live() {
				t.Errorf("%s partition %d: deletion %+v, want live", s.prefix, i, e.deletion)
			}
			// The first block starts right after the partition header, and
			// each block starts where the previous one ends.
			if e.blocks[0].Offset != e.header {
				t.Errorf("%s partition %d: first block at %d, header is %d bytes", s.prefix, i, e.blocks[0].Offset, e.header)
			}
			var sum int64
			var prevLast int32 = -1
			for j, b := range e.blocks {
				if j > 0 && b.Offset != e.blocks[j-1].Offset+e.blocks[j-1].Width {
					t.Errorf("%s partition %d block %d: offset %d, previous ends at %d", s.prefix, i, j, b.Offset, e.blocks[j-1].Offset+e.blocks[j-1].Width)
				}
				if (b.Width < 4096 && j < len(e.blocks)-1) || b.Width <= 0 || b.Width > 8192 {
					t.Errorf("%s partition %d block %d: width %d for 4 KiB blocks", s.prefix, i, j, b.Width)
				}
				sum += b.Width
				first, last := clusteringInt(t, b.First), clusteringInt(t, b.Last)
				if first <= prevLast || last < first {
					t.Errorf("%s partition %d block %d: clusterings %d..%d after %d", s.prefix, i, j, first, last, prevLast)
				}
				prevLast = last
			}
			if prevLast != 299 || clusteringInt(t, e.blocks[0].First) != 0 {
				t.Errorf("%s partition %d: blocks cover c=%d..%d, want 0..299", s.prefix, i, clusteringInt(t, e.blocks[0].First), prevLast)
			}
			// The header and the blocks make up the partition (the last
			// block's width includes the end-of-partition byte).
			if i+1 < len(entries) {
				if size := entries[i+1].data - e.data; e.header+sum != size {
					t.Errorf("%s partition %d: header %d + blocks %d != partition size %d", s.prefix, i, e.header, sum, size)
				}
			}
		}
	}
	if seen < 2 {
		t.Fatalf("found %d wide SSTables with 3 partitions, want nb and oa", seen)
	}
}

func clusteringInt(t *testing.T, p ClusteringPrefix) int32 {
	t.Helper()
	if p.Kind != KindClustering || len(p.Values) != 1 || len(p.Values[0]) != 4 {
		t.Fatalf("prefix %+v is not one int clustering", p)
	}
	return int32(binary.BigEndian.Uint32(p.Values[0]))
}

// TestSummaryMatchesIndex: every summary entry names the Index.db entry at
// its position, the first and last keys are the index's, and Floor finds
// the right sample for every key.
func TestSummaryMatchesIndex(t *testing.T) {
	manyEntries := 0
	cases := corpus.NewCases(t)
	for _, s := range append(corpusTables(t), publicTables(t)...) {
		cases.Run(s.name, func(t *testing.T) {
			sum, err := ParseSummary(s.read(t, "Summary.db"), s.path("Summary.db"))
			if err != nil {
				t.Fatalf("%s: %v", s.prefix, err)
			}
			entries := readIndex(t, s, PromotedSkip)
			byPos := map[int64]int{}
			for i, e := range entries {
				byPos[e.pos] = i
			}
			if sum.Len() == 0 || sum.SamplingLevel != 128 {
				t.Errorf("%s: %d summary entries at sampling level %d", s.prefix, sum.Len(), sum.SamplingLevel)
			}
			for i := 0; i < sum.Len(); i++ {
				j, ok := byPos[sum.IndexPosition(i)]
				if !ok {
					t.Fatalf("%s summary %d: position %d is no index entry", s.prefix, i, sum.IndexPosition(i))
				}
				if !bytes.Equal(sum.Key(i), entries[j].key) {
					t.Errorf("%s summary %d: key %x, index entry has %x", s.prefix, i, sum.Key(i), entries[j].key)
				}
				if j != i*sum.MinIndexInterval {
					t.Errorf("%s summary %d: samples index entry %d, want every %dth", s.prefix, i, j, sum.MinIndexInterval)
				}
			}
			if !bytes.Equal(sum.FirstKey(), entries[0].key) || !bytes.Equal(sum.LastKey(), entries[len(entries)-1].key) {
				t.Errorf("%s: first/last keys %x/%x, index has %x/%x", s.prefix, sum.FirstKey(), sum.LastKey(), entries[0].key, entries[len(entries)-1].key)
			}
			// Every key is found by scanning from its floor sample.
			for j, e := range entries {
				i := sum.Floor(e.key)
				if want := j / sum.MinIndexInterval; i != want {
					t.Errorf("%s: Floor(entry %d) = %d, want %d", s.prefix, j, i, want)
				}
				if p := sum.ScanPosition(e.key); p > e.pos {
					t.Errorf("%s: scan position %d is past entry %d at %d", s.prefix, p, j, e.pos)
				}
			}
			if s.table == "many" {
				manyEntries = max(manyEntries, sum.Len())
			}
		})
	}
	// A floor on the whole corpus: it holds only when every SSTable ran.
	if cases.All() && manyEntries < 4 {
		t.Errorf("table many: %d summary entries, want several", manyEntries)
	}
}

// TestSummaryFloorOrder checks Search's boundaries on the 520-partition
// table: a key before every sample gives -1 and scan position 0.
func TestSummaryFloorOrder(t *testing.T) {
	for _, s := range corpusTables(t) {
		if s.table != "many" {
			continue
		}
		sum, err := ParseSummary(s.read(t, "Summary.db"), s.path("Summary.db"))
		if err != nil {
			t.Fatal(err)
		}
		if i := sum.Floor(nil); i != -1 || sum.ScanPosition(nil) != 0 {
			t.Errorf("%s: Floor(empty key) = %d, want -1", s.prefix, i)
		}
		if i := sum.Floor(sum.LastKey()); i != sum.Len()-1 {
			t.Errorf("%s: Floor(last key) = %d, want %d", s.prefix, i, sum.Len()-1)
		}
		for i := 0; i < sum.Len(); i++ {
			if got := sum.Floor(sum.Key(i)); got != i {
				t.Errorf("%s: Floor(Key(%d)) = %d", s.prefix, i, got)
			}
		}
	}
}

// TestFilter: every key of every SSTable may be present, and absent keys
// mostly are not (bloom_filter_fp_chance 0.01).
func TestFilter(t *testing.T) {
	for _, s := range append(corpusTables(t), publicTables(t)...) {
		t.Run(s.name, func(t *testing.T) {
			rng := corpus.Rand(t, 1)
			f, err := s.parseFilter(s.read(t, "Filter.db"))
			if err != nil {
				t.Fatalf("%s: %v", s.prefix, err)
			}
			entries := readIndex(t, s, PromotedSkip)
			present := map[string]bool{}
			for _, e := range entries {
				present[string(e.key)] = true
				if !f.MayContain(e.key) {
					t.Errorf("%s: filter rejects its key %x", s.prefix, e.key)
				}
			}
			if len(entries) < 100 {
				return // too small a filter to measure its rate
			}
			fp, tries := 0, 0
			for tries < 10000 {
				k := make([]byte, len(entries[0].key))
				for i := range k {
					k[i] = byte(rng.Uint32())
				}
				if present[string(k)] {
					continue
				}
				tries++
				if f.MayContain(k) {
					fp++
				}
			}
			if rate := float64(fp) / float64(tries); rate >= 0.05 {
				t.Errorf("%s: false-positive rate %.4f", s.prefix, rate)
			} else {
				t.Logf("%s: false-positive rate %.4f over %d bits, %d hashes", s.prefix, rate, f.Bits(), f.HashCount)
			}
		})
	}
}

// TestFilterLayoutMatters guards the layout tests above against passing
// by luck: reading a filter in the other bit layout loses keys.
func TestFilterLayoutMatters(t *testing.T) {
	for _, s := range corpusTables(t) {
		if s.table != "many" {
			continue
		}
		b := s.read(t, "Filter.db")
		wrong, err := ParseOldFilter(b, s.path("Filter.db"))
		if err != nil {
			t.Fatal(err)
		}
		lost := 0
		for _, e := range readIndex(t, s, PromotedSkip) {
			if !wrong.MayContain(e.key) {
				lost++
			}
		}
		if lost < 100 {
			t.Errorf("%s: the old layout still accepts all but %d keys", s.prefix, lost)
		}
	}
	// And the 3.x filters, read in the na+ layout, lose their keys.
	keys, lost := 0, 0
	for _, s := range publicTables(t) {
		wrong, err := ParseFilter(s.read(t, "Filter.db"), s.path("Filter.db"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range readIndex(t, s, PromotedSkip) {
			keys++
			if !wrong.MayContain(e.key) {
				lost++
			}
		}
	}
	if lost*2 < keys {
		t.Errorf("3.x filters read in the na layout still accept %d of %d keys", keys-lost, keys)
	}
}

// TestPublicIndex: the 3.x fixtures decode fully, with 12-byte deletion
// times, and their data positions start at 0 and increase.
func TestPublicIndex(t *testing.T) {
	for _, s := range publicTables(t) {
		t.Run(s.name, func(t *testing.T) {
			entries := readIndex(t, s, PromotedHeader)
			if len(entries) == 0 || entries[0].data != 0 {
				t.Errorf("%s: %d entries", s.prefix, len(entries))
			}
			for i, e := range entries {
				if e.promoted > 0 && !e.deletion.Live() {
					t.Logf("%s entry %d: partition deletion %+v", s.prefix, i, e.deletion)
				}
			}
		})
	}
}
