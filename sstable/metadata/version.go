package metadata

import (
	"fmt"
	"slices"
	"strings"
)

// Versions are the SSTable format versions the reader supports, by
// format (Descriptor.Format), oldest first: ma…me (3.x), na, nb, nc (4.x,
// and 5.0 in compatibility mode), oa (5.0 BIG), da (5.0 BTI). It is the
// one list of them: ParseVersion accepts exactly these, and each version a
// harness mode writes (internal/testkit/cassandratest's modes) must be here.
//
// To add a format version, touch:
//   - this list, and ParseVersion's flags for what the version changes
//     (a new flag where it changes something no flag covers yet, and the
//     decoders under sstable/ that branch on it);
//   - internal/testkit/cassandratest/mode.go, if the Cassandra of the harness
//     writes it: the mode that writes it (its versions) or a new mode
//     (its format, versions and cassandra.yaml settings); every corpus
//     loop, the corpus generator and the harness's -mode follow that list;
//   - for a new mode, TestCluster.MODES in the Trino suite
//     (trino/src/test/java/io/sstableflight/trino/it/TestCluster.java),
//     which internal/testkit/cassandratest's TestModeListsAgree holds to the list;
//   - then regenerate the committed corpus (make corpus) and run the
//     coverage check (make check-corpus-full).
//
// A new format beside big and bti also needs its name in descriptor.go's
// pattern and its own index reader, as big/ and bti/ are.
var Versions = map[string][]string{
	"big": {"ma", "mb", "mc", "md", "me", "na", "nb", "nc", "oa"},
	"bti": {"da"},
}

// Version is an SSTable format version (the two letters of the file name)
// with the feature flags the reader branches on. Branch on the flags, never
// on names: Cassandra's BigFormat.BigVersion and BtiFormat.BtiVersion
// define each flag by comparing versions.
type Version struct {
	Name string
	BTI  bool // trie-indexed format (da): Partitions.db + Rows.db, no Summary/Index
	// MetadataChecksum: Statistics.db carries CRC32s after its count, its
	// table of contents and each component (na+).
	MetadataChecksum bool
	// MaxCompressedLength: CompressionInfo.db stores it (na+).
	MaxCompressedLength bool
	// UIntDeletionTime: DeletionTime is 0x80 for live, else long + uint
	// local deletion time (oa+ and da); before, int + long (12 bytes).
	UIntDeletionTime bool
	// OldBloomFilter: Filter.db predates the na serialization.
	OldBloomFilter bool

	// Statistics.db STATS component fields (StatsMetadata), as
	// BigFormat.BigVersion and BtiFormat.BtiVersion gate them:
	CommitLogLowerBound bool // mb+, da
	CommitLogIntervals  bool // mc+, da
	// LegacyMinMax: min/max clustering values as two lists (m*, n*).
	LegacyMinMax bool
	// ImprovedMinMax: clustering types and the covered clustering slice
	// (nc+, da); in nc after the partition-level deletion marker, from oa
	// in place of the legacy lists.
	ImprovedMinMax            bool
	PendingRepair             bool // na+, da; also isTransient
	OriginatingHostID         bool // me, nb+, da
	PartitionDeletionsPresent bool // nc+, da: hasPartitionLevelDeletions marker
	KeyRange                  bool // nc+, da: first and last partition key
	TokenSpaceCoverage        bool // oa+, da
}

// ParseVersion maps version letters to features. It accepts the versions
// of Versions, each with its format.
func ParseVersion(name string, format string) (Version, error) {
	v := Version{Name: name, BTI: format == "bti"}
	names, ok := Versions[format]
	if !ok {
		return v, fmt.Errorf("parse sstable version %q: unknown format %q", name, format)
	}
	if !slices.Contains(names, name) {
		return v, fmt.Errorf("parse sstable version %q: unsupported %s version", name, strings.ToUpper(format))
	}
	atLeast := func(big string) bool { return v.BTI || name >= big }
	v.MetadataChecksum = atLeast("na")
	v.MaxCompressedLength = atLeast("na")
	v.UIntDeletionTime = atLeast("oa")
	v.OldBloomFilter = !atLeast("na")
	v.CommitLogLowerBound = atLeast("mb")
	v.CommitLogIntervals = atLeast("mc")
	v.LegacyMinMax = !v.BTI && name < "oa"
	v.ImprovedMinMax = atLeast("nc")
	v.PendingRepair = atLeast("na")
	v.OriginatingHostID = atLeast("nb") || name == "me"
	v.PartitionDeletionsPresent = atLeast("nc")
	v.KeyRange = atLeast("nc")
	v.TokenSpaceCoverage = atLeast("oa")
	return v, nil
}
