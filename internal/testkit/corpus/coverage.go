package corpus

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// Feature is one item of the coverage list: something every mode's corpus
// must contain, checked against the exported data, not the generator.
type Feature struct {
	Name  string
	Check func(c *ModeCorpus) bool
}

// NativeTypes are the CQL native types the corpus must hold.
var NativeTypes = []string{"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal",
	"double", "duration", "float", "inet", "int", "smallint", "text", "time", "timestamp",
	"timeuuid", "tinyint", "uuid", "varchar", "varint", "vector"}

// Features is the coverage list of testdata/corpus/README.md.
func Features() []Feature {
	var fs []Feature
	for _, t := range NativeTypes {
		fs = append(fs, Feature{"type " + t, func(c *ModeCorpus) bool { return c.anyColumnType(usesType(t)) }})
	}
	// NB: varchar is an alias of text; Cassandra's schema names it text, so
	// the varchar feature is the column declared as varchar.
	fs[slices.IndexFunc(fs, func(f Feature) bool { return f.Name == "type varchar" })].Check = func(c *ModeCorpus) bool {
		return c.anyTable(func(t *CorpusTable) bool {
			return slices.ContainsFunc(t.Expected.Columns, func(col Column) bool { return col.Name == "c_varchar" && col.Type == "text" })
		})
	}
	fs = append(fs,
		edge("int min and max", "c_int", "-2147483648", "2147483647"),
		edge("bigint min and max", "c_bigint", "-9223372036854775808", "9223372036854775807"),
		edge("smallint min and max", "c_smallint", "-32768", "32767"),
		edge("tinyint min and max", "c_tinyint", "-128", "127"),
		edge("zero", "c_int", "0"),
		edge("empty string", "c_text", ""),
		edge("empty blob", "c_blob", "0x"),
		edge("float NaN and ±Inf", "c_float", "NaN", "Infinity", "-Infinity"),
		edge("double NaN and ±Inf", "c_double", "NaN", "Infinity", "-Infinity"),
		edgeFn("large varint", "c_varint", func(s string) bool { return len(strings.TrimPrefix(s, "-")) > 30 }),
		edgeFn("large decimal", "c_decimal", func(s string) bool { return len(strings.TrimPrefix(s, "-")) > 30 }),
		edgeFn("pre-1970 date", "c_date", func(s string) bool { return s < "1970" }),
		edgeFn("pre-1970 timestamp", "c_timestamp", func(s string) bool { return s < "1970" }),
		edgeFn("IPv6 address", "c_inet", func(s string) bool { return strings.Contains(s, ":") }),
		Feature{"non-frozen list", columnType(`^list<`)},
		Feature{"non-frozen set", columnType(`^set<`)},
		Feature{"non-frozen map", columnType(`^map<`)},
		Feature{"frozen list", columnType(`^frozen<list<`)},
		Feature{"frozen set", columnType(`^frozen<set<`)},
		Feature{"frozen map", columnType(`^frozen<map<`)},
		Feature{"nested frozen collection", columnType(`^(frozen<)?(list|set|map)<.*frozen<(list|set|map)<`)},
		Feature{"tuple", columnType(`tuple<`)},
		Feature{"non-frozen UDT", func(c *ModeCorpus) bool { return c.udtColumn(false) }},
		Feature{"frozen UDT", func(c *ModeCorpus) bool { return c.udtColumn(true) }},
		Feature{"static column", columnKind("static", 1)},
		Feature{"composite partition key", columnKind("partition_key", 2)},
		Feature{"multi-column clustering, ASC and DESC", func(c *ModeCorpus) bool {
			return c.anyTable(func(t *CorpusTable) bool {
				order := map[string]bool{}
				for _, col := range t.Expected.Columns {
					if col.Kind == "clustering" {
						order[col.ClusteringOrder] = true
					}
				}
				return order["asc"] && order["desc"]
			})
		}},
		Feature{"wide partition with a row index", hasRowIndex},
		Feature{"several index summary entries", severalSummaryEntries},
		Feature{"partition deletion", dumpHas(func(p DumpPartition, _ map[string]any) bool { return len(p.Partition.DeletionInfo) > 0 })},
		Feature{"row deletion", dumpHas(func(_ DumpPartition, r map[string]any) bool { return r["type"] == "row" && r["deletion_info"] != nil })},
		Feature{"range tombstone, inclusive start", boundHas("start", "inclusive", true)},
		Feature{"range tombstone, exclusive start", boundHas("start", "exclusive", true)},
		Feature{"range tombstone, inclusive end", boundHas("end", "inclusive", true)},
		Feature{"range tombstone, exclusive end", boundHas("end", "exclusive", true)},
		Feature{"range tombstone, open start", boundHas("start", "", false)},
		Feature{"range tombstone, open end", boundHas("end", "", false)},
		Feature{"range tombstone boundary", dumpHas(func(_ DumpPartition, r map[string]any) bool { return r["type"] == "range_tombstone_boundary" })},
		Feature{"cell tombstone", cellHas(func(cell map[string]any) bool { return cell["path"] == nil && isCellTombstone(cell) })},
		Feature{"collection element tombstone", cellHas(func(cell map[string]any) bool { return cell["path"] != nil && isCellTombstone(cell) })},
		Feature{"collection deletion or overwrite (complex deletion)", cellHas(func(cell map[string]any) bool {
			di, _ := cell["deletion_info"].(map[string]any)
			return di != nil && di["marked_deleted"] != nil
		})},
		Feature{"static row", dumpHas(func(_ DumpPartition, r map[string]any) bool { return r["type"] == "static_block" })},
		Feature{"row TTL", dumpHas(func(_ DumpPartition, r map[string]any) bool {
			li, _ := r["liveness_info"].(map[string]any)
			return li != nil && li["ttl"] != nil
		})},
		Feature{"cell TTL", cellHas(func(cell map[string]any) bool { return cell["ttl"] != nil })},
		Feature{"TTL already expired when read", cellOrRowExpired},
		Feature{"explicit timestamps tied across flushes", tiedTimestamps},
		Feature{"counters updated across several flushes", func(c *ModeCorpus) bool {
			return c.anyTable(func(t *CorpusTable) bool {
				return len(t.SSTables) >= 3 && slices.ContainsFunc(t.Expected.Columns, func(col Column) bool { return col.Type == "counter" })
			})
		}},
		Feature{"three overlapping generations", threeOverlapping},
		compressionFeature("compression LZ4", "LZ4Compressor", true),
		compressionFeature("compression Snappy", "SnappyCompressor", true),
		compressionFeature("compression Deflate", "DeflateCompressor", true),
		compressionFeature("compression Zstd", "ZstdCompressor", true),
		compressionFeature("compression disabled", "'enabled': 'false'", false),
		Feature{"non-default chunk_length_in_kb", func(c *ModeCorpus) bool {
			return c.anyTable(func(t *CorpusTable) bool {
				m := regexp.MustCompile(`'chunk_length_in_kb': '(\d+)'`).FindStringSubmatch(t.Schema)
				return m != nil && m[1] != "16" && t.SSTables[0].Components["CompressionInfo.db"] > 0
			})
		}},
	)
	return fs
}

// Check verifies one mode's corpus: structure (every table, every TOC
// component, Data.db checksums, a dump per Data.db, versions that match
// the mode) and then every Feature. It returns every problem found.
func Check(dir string) []error {
	c, err := Load(dir)
	if err != nil {
		return []error{err}
	}
	var errs []error
	allowed := cassandratest.Mode(c.Manifest.StorageMode).Versions()
	if allowed == nil {
		errs = append(errs, fmt.Errorf("%s: manifest names unknown storage mode %q", dir, c.Manifest.StorageMode))
	}
	for _, t := range Tables {
		ct := c.Tables[t.Name]
		if ct == nil {
			errs = append(errs, fmt.Errorf("%s: table %s missing", dir, t.Name))
			continue
		}
		if len(ct.SSTables) == 0 {
			errs = append(errs, fmt.Errorf("%s: no SSTables", ct.Dir))
		}
		for _, st := range ct.SSTables {
			if !slices.Contains(allowed, st.Version) {
				errs = append(errs, fmt.Errorf("%s/%s: version %s in a %s corpus", ct.Dir, st.Prefix, st.Version, c.Manifest.StorageMode))
			}
			if err := ct.verifyComponents(st); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, f := range Features() {
		if !f.Check(c) {
			errs = append(errs, fmt.Errorf("%s: coverage: no %s", dir, f.Name))
		}
	}
	return errs
}

func (c *ModeCorpus) anyTable(fn func(t *CorpusTable) bool) bool {
	for _, t := range c.Tables {
		if fn(t) {
			return true
		}
	}
	return false
}

func (c *ModeCorpus) anyColumnType(fn func(typ string) bool) bool {
	return c.anyTable(func(t *CorpusTable) bool {
		return slices.ContainsFunc(t.Expected.Columns, func(col Column) bool { return fn(col.Type) })
	})
}

var typeWordRE = regexp.MustCompile(`[a-z_0-9]+`)

// usesType matches a column type that is or contains the native type,
// including as a UDT field (UDT definitions are in schema.cql).
func usesType(native string) func(string) bool {
	return func(typ string) bool { return slices.Contains(typeWordRE.FindAllString(typ, -1), native) }
}

func columnType(pattern string) func(c *ModeCorpus) bool {
	re := regexp.MustCompile(pattern)
	return func(c *ModeCorpus) bool { return c.anyColumnType(re.MatchString) }
}

func columnKind(kind string, atLeast int) func(c *ModeCorpus) bool {
	return func(c *ModeCorpus) bool {
		return c.anyTable(func(t *CorpusTable) bool {
			n := 0
			for _, col := range t.Expected.Columns {
				if col.Kind == kind {
					n++
				}
			}
			return n >= atLeast
		})
	}
}

// udtColumn looks for a column whose type is a user type of the table's
// schema.cql, frozen or not.
func (c *ModeCorpus) udtColumn(frozen bool) bool {
	return c.anyTable(func(t *CorpusTable) bool {
		for _, m := range regexp.MustCompile(`CREATE TYPE \w+\.(\w+)`).FindAllStringSubmatch(t.Schema, -1) {
			for _, col := range t.Expected.Columns {
				if (frozen && col.Type == "frozen<"+m[1]+">") || (!frozen && col.Type == m[1]) {
					return true
				}
			}
		}
		return false
	})
}

func edge(name, column string, values ...string) Feature {
	return Feature{"edge value: " + name, func(c *ModeCorpus) bool {
		for _, v := range values {
			if !c.allTypesHas(column, func(s string) bool { return s == v }) {
				return false
			}
		}
		return true
	}}
}

func edgeFn(name, column string, fn func(string) bool) Feature {
	return Feature{"edge value: " + name, func(c *ModeCorpus) bool { return c.allTypesHas(column, fn) }}
}

// allTypesHas looks at the canonical values of one all_types column.
func (c *ModeCorpus) allTypesHas(column string, fn func(string) bool) bool {
	t := c.Tables["all_types"]
	if t == nil {
		return false
	}
	for _, r := range t.Expected.Rows {
		v := r.Values[column]
		if v == nil {
			continue
		}
		if fn(fmt.Sprint(v)) {
			return true
		}
	}
	return false
}

func dumpHas(fn func(p DumpPartition, row map[string]any) bool) func(c *ModeCorpus) bool {
	return func(c *ModeCorpus) bool {
		return c.anyTable(func(t *CorpusTable) bool {
			for _, st := range t.SSTables {
				for _, p := range st.Dump {
					if fn(p, nil) {
						return true
					}
					for _, r := range p.Rows {
						if fn(p, r) {
							return true
						}
					}
				}
			}
			return false
		})
	}
}

func cellHas(fn func(cell map[string]any) bool) func(c *ModeCorpus) bool {
	return dumpHas(func(_ DumpPartition, r map[string]any) bool {
		cells, _ := r["cells"].([]any)
		for _, cell := range cells {
			if m, ok := cell.(map[string]any); ok && fn(m) {
				return true
			}
		}
		return false
	})
}

// isCellTombstone: sstabledump prints a deleted cell with a deletion_info
// holding only its local deletion time (a complex deletion also has
// marked_deleted).
func isCellTombstone(cell map[string]any) bool {
	di, _ := cell["deletion_info"].(map[string]any)
	return di != nil && di["marked_deleted"] == nil
}

// boundHas finds a range tombstone marker side ("start" or "end") of the
// given kind; closed=false asks for an open bound (no clustering values).
func boundHas(side, kind string, closed bool) func(c *ModeCorpus) bool {
	return dumpHas(func(_ DumpPartition, r map[string]any) bool {
		if r["type"] != "range_tombstone_bound" && r["type"] != "range_tombstone_boundary" {
			return false
		}
		b, _ := r[side].(map[string]any)
		if b == nil {
			return false
		}
		_, hasClustering := b["clustering"]
		if !closed {
			return !hasClustering
		}
		return hasClustering && b["type"] == kind
	})
}

func cellOrRowExpired(c *ModeCorpus) bool {
	return dumpHas(func(_ DumpPartition, r map[string]any) bool {
		if li, _ := r["liveness_info"].(map[string]any); li != nil && li["expired"] == true {
			return true
		}
		cells, _ := r["cells"].([]any)
		for _, cell := range cells {
			if m, _ := cell.(map[string]any); m != nil && m["expired"] == true {
				return true
			}
		}
		return false
	})(c)
}

// tiedTimestamps finds the same cell written in two SSTables with the same
// timestamp (and so needing Cassandra's tie-break rule).
func tiedTimestamps(c *ModeCorpus) bool {
	return c.anyTable(func(t *CorpusTable) bool {
		seen := map[string]string{} // partition/clustering/cell@timestamp → sstable
		for _, st := range t.SSTables {
			for _, p := range st.Dump {
				for _, r := range p.Rows {
					li, _ := r["liveness_info"].(map[string]any)
					cells, _ := r["cells"].([]any)
					for _, cell := range cells {
						m, _ := cell.(map[string]any)
						ts := m["tstamp"]
						if ts == nil && li != nil {
							ts = li["tstamp"]
						}
						if ts == nil {
							continue
						}
						k := fmt.Sprint(p.Partition.Key, r["clustering"], m["name"], m["path"], "@", ts)
						if prev, ok := seen[k]; ok && prev != st.Prefix {
							return true
						}
						seen[k] = st.Prefix
					}
				}
			}
		}
		return false
	})
}

// threeOverlapping finds a partition present in at least three SSTables of
// one table.
func threeOverlapping(c *ModeCorpus) bool {
	return c.anyTable(func(t *CorpusTable) bool {
		count := map[string]int{}
		for _, st := range t.SSTables {
			for _, p := range st.Dump {
				k := fmt.Sprint(p.Partition.Key)
				count[k]++
				if count[k] >= 3 {
					return true
				}
			}
		}
		return false
	})
}

// hasRowIndex finds an SSTable with a row index. BTI writes a Rows.db
// entry only for a partition that spans more than one index block, so a
// non-empty Rows.db is one. BIG writes an Index.db entry for every
// partition, about 8 bytes for a small int key, and a promoted index of
// IndexInfo entries only for partitions over column_index_size (4 KiB
// here): an average above 64 bytes per partition means promoted indexes.
func hasRowIndex(c *ModeCorpus) bool {
	return c.anyTable(func(t *CorpusTable) bool {
		for _, st := range t.SSTables {
			if st.Components["Rows.db"] > 0 {
				return true
			}
			if len(st.Dump) > 0 && st.Components["Index.db"]/int64(len(st.Dump)) >= 64 {
				return true
			}
		}
		return false
	})
}

// severalSummaryEntries: for BIG, Summary.db's header counts its entries
// (int32 min interval, int32 count, big-endian); BTI has no summary, so ask
// for a partition trie over at least three summary intervals' worth of keys.
func severalSummaryEntries(c *ModeCorpus) bool {
	return c.anyTable(func(t *CorpusTable) bool {
		for _, st := range t.SSTables {
			if st.Components["Summary.db"] > 0 {
				b, err := os.ReadFile(filepath.Join(t.Dir, st.Prefix+"-Summary.db"))
				if err == nil && len(b) >= 8 && binary.BigEndian.Uint32(b[4:8]) >= 3 {
					return true
				}
			}
			if st.Components["Partitions.db"] > 0 && len(st.Dump) >= 3*128 {
				return true
			}
		}
		return false
	})
}

// compressionFeature finds a table declared with the compressor whose
// SSTables really are written with it: CompressionInfo.db starts with the
// compressor's class name (a u16-length string). Cassandra may flush with
// another compressor than the table's (flush_compression), so the schema
// alone proves nothing.
func compressionFeature(name, marker string, compressed bool) Feature {
	return Feature{name, func(c *ModeCorpus) bool {
		return c.anyTable(func(t *CorpusTable) bool {
			if !strings.Contains(t.Schema, marker) {
				return false
			}
			for _, st := range t.SSTables {
				if (st.Components["CompressionInfo.db"] > 0) != compressed {
					return false
				}
				if compressed && !strings.Contains(compressorClass(t, st), marker) {
					return false
				}
			}
			return len(t.SSTables) > 0
		})
	}}
}

func compressorClass(t *CorpusTable, st SSTableFiles) string {
	b, err := os.ReadFile(filepath.Join(t.Dir, st.Prefix+"-CompressionInfo.db"))
	if err != nil || len(b) < 2 {
		return ""
	}
	n := int(binary.BigEndian.Uint16(b))
	if 2+n > len(b) {
		return ""
	}
	return string(b[2 : 2+n])
}
