package metadata_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"

	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/token"
)

// metadataReport is the part of an sstablemetadata report the tests read:
// its top-level "Name: value" lines, and the percentile lines of each
// histogram section ("Partition Size" → "Min" → "51 (51 B)").
type metadataReport struct {
	fields     map[string]string
	histograms map[string]map[string]string
}

func readMetadataReport(t *testing.T, path string) metadataReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := metadataReport{fields: map[string]string{}, histograms: map[string]map[string]string{}}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, " ") {
			name, val, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			section = name
			if _, dup := r.fields[name]; !dup {
				r.fields[name] = strings.TrimSpace(val)
			}
			continue
		}
		fs := strings.Fields(line)
		if len(fs) >= 2 && (fs[0] == "Min" || fs[0] == "Max" || strings.HasSuffix(fs[0], "th")) {
			if r.histograms[section] == nil {
				r.histograms[section] = map[string]string{}
			}
			r.histograms[section][fs[0]] = strings.Join(fs[1:], " ")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// firstInt is the leading integer of a value ("315360000 (3650 days)").
func firstInt(s string) (int64, error) {
	f, _, _ := strings.Cut(s, " ")
	return strconv.ParseInt(f, 10, 64)
}

// parenInt is the integer in a value's last parentheses
// ("11/30/2026 17:27:56 (1796059676330628)").
func parenInt(s string) (int64, error) {
	i := strings.LastIndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return 0, fmt.Errorf("no parenthesized value in %q", s)
	}
	return strconv.ParseInt(s[i+1:len(s)-1], 10, 64)
}

// TestStatsMatchMetadataReport: for every corpus SSTable, the STATS
// component agrees with Cassandra's sstablemetadata report.
func TestStatsMatchMetadataReport(t *testing.T) {
	n := 0
	cases := eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		for _, st := range tbl.SSTables {
			s, _, v := readStatistics(t, tbl, st)
			rep := readMetadataReport(t, filepath.Join(tbl.Dir, corpus.MetadataDir, st.Prefix+".txt"))
			checkStatsReport(t, fmt.Sprintf("%s %s/%s", mode, tbl.Name, st.Prefix), s, v, rep)
			n++
		}
	})
	if cases.All() && n < 3*29 {
		t.Fatalf("checked %d SSTables", n)
	}
}

func checkStatsReport(t *testing.T, name string, s *metadata.Statistics, v metadata.Version, rep metadataReport) {
	t.Helper()
	st := &s.Stats
	field := func(key string) string {
		t.Helper()
		val, ok := rep.fields[key]
		if !ok {
			t.Errorf("%s: report has no %q", name, key)
		}
		return val
	}
	checkInt := func(key string, parse func(string) (int64, error), got int64) {
		t.Helper()
		want, err := parse(field(key))
		if err != nil {
			t.Errorf("%s: %s: %v", name, key, err)
		} else if got != want {
			t.Errorf("%s: %s = %d, report says %d", name, key, got, want)
		}
	}
	checkInt("Minimum timestamp", parenInt, st.MinTimestamp)
	checkInt("Maximum timestamp", parenInt, st.MaxTimestamp)
	checkInt("SSTable min local deletion time", parenInt, st.MinLocalDeletionTime)
	checkInt("SSTable max local deletion time", parenInt, st.MaxLocalDeletionTime)
	checkInt("TTL min", firstInt, int64(st.MinTTL))
	checkInt("TTL max", firstInt, int64(st.MaxTTL))
	checkInt("SSTable Level", firstInt, int64(st.Level))
	checkInt("Repaired at", firstInt, st.RepairedAt)
	checkInt("totalColumnsSet", firstInt, st.TotalColumnsSet)
	checkInt("totalRows", firstInt, st.TotalRows)

	if rep.fields["Compressor"] == "-" {
		// NB: no ratio line without compression; Cassandra writes -1.
		if st.CompressionRatio != -1 {
			t.Errorf("%s: uncompressed, compression ratio %v, want -1", name, st.CompressionRatio)
		}
	} else if want, err := strconv.ParseFloat(field("Compression ratio"), 64); err != nil {
		t.Errorf("%s: compression ratio: %v", name, err)
	} else if math.Abs(st.CompressionRatio-want) > 1e-12 {
		t.Errorf("%s: compression ratio %v, report says %v", name, st.CompressionRatio, want)
	}
	if got, want := hostID(st.OriginatingHostID), field("Originating host id"); got != want {
		t.Errorf("%s: originating host id %s, report says %s", name, got, want)
	}
	if got, want := hostID(st.PendingRepair), field("Pending repair"); got != want {
		t.Errorf("%s: pending repair %s, report says %s", name, got, want)
	}
	if got, want := strconv.FormatBool(st.IsTransient), field("IsTransient"); got != want {
		t.Errorf("%s: isTransient %s, report says %s", name, got, want)
	}
	if got, want := commitLogIntervals(st.CommitLogIntervals), field("Replay positions covered"); got != want {
		t.Errorf("%s: commit log intervals %s, report says %s", name, got, want)
	}
	if want := field("Local token space coverage"); want == "NaN" {
		if !math.IsNaN(st.TokenSpaceCoverage) {
			t.Errorf("%s: token space coverage %v, report says NaN", name, st.TokenSpaceCoverage)
		}
	} else if w, err := strconv.ParseFloat(want, 64); err != nil || w != st.TokenSpaceCoverage {
		t.Errorf("%s: token space coverage %v, report says %s", name, st.TokenSpaceCoverage, want)
	}

	for _, h := range []struct {
		section string
		buckets []metadata.HistogramBucket
	}{{"Partition Size", st.PartitionSizes}, {"Column Count", st.CellsPerPartition}} {
		p := rep.histograms[h.section]
		if p == nil {
			t.Errorf("%s: report has no %s percentiles", name, h.section)
			continue
		}
		checkInt2 := func(key string, got int64) {
			t.Helper()
			if want, err := firstInt(p[key]); err != nil || got != want {
				t.Errorf("%s: %s %s = %d, report says %q", name, h.section, key, got, p[key])
			}
		}
		// NB: the report prints EstimatedHistogram.min(), one above the
		// offset written with the first non-empty bucket, and max(), the
		// offset written with the bucket after the last non-empty one.
		checkInt2("Min", histogramMin(h.buckets))
		checkInt2("Max", histogramMax(h.buckets))
	}

	if v.KeyRange {
		for _, k := range []struct {
			key string
			raw []byte
		}{{"First token", st.FirstKey}, {"Last token", st.LastKey}} {
			checkInt(k.key, firstInt, int64(token.Of(k.raw)))
		}
	}

	types := s.Header.ClusteringTypes
	if st.HasCoveredClustering {
		if !slices.Equal(st.ClusteringTypes, types) {
			t.Errorf("%s: stats clustering types %v, header %v", name, st.ClusteringTypes, types)
		}
	}
	if want := field("Covered clusterings"); want != "" {
		if got, ok := coveredClusterings(st, types); ok && got != want {
			t.Errorf("%s: covered clusterings %s, report says %s", name, got, want)
		}
	}
}

func hostID(u *metadata.UUID) string {
	if u == nil {
		return "--"
	}
	return u.String()
}

// commitLogIntervals prints intervals as Cassandra's IntervalSet.toString.
func commitLogIntervals(iv []metadata.CommitLogInterval) string {
	pos := func(p metadata.CommitLogPosition) string {
		return fmt.Sprintf("CommitLogPosition(segmentId=%d, position=%d)", p.SegmentID, p.Position)
	}
	var parts []string
	for _, i := range iv {
		parts = append(parts, pos(i.Start)+"="+pos(i.End))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// coveredClusterings prints the covered slice as the report does, when
// every clustering type is int or text (ok false otherwise).
func coveredClusterings(st *metadata.StatsMetadata, types []string) (string, bool) {
	const (
		int32Type = "org.apache.cassandra.db.marshal.Int32Type"
		utf8Type  = "org.apache.cassandra.db.marshal.UTF8Type"
	)
	for _, ty := range types {
		if ty != int32Type && ty != utf8Type {
			return "", false
		}
	}
	format := func(values [][]byte) (string, bool) {
		var out []string
		for i, b := range values {
			switch {
			case b == nil:
				return "", false
			case types[i] == int32Type && len(b) == 4:
				out = append(out, strconv.Itoa(int(int32(binary.BigEndian.Uint32(b)))))
			case types[i] == utf8Type:
				out = append(out, string(b))
			default:
				return "", false
			}
		}
		return strings.Join(out, ":"), true
	}
	if st.HasLegacyMinMax {
		if len(st.MinClusteringValues) == 0 && len(st.MaxClusteringValues) == 0 {
			return "ALL", true
		}
		lo, ok1 := format(st.MinClusteringValues)
		hi, ok2 := format(st.MaxClusteringValues)
		return "[" + lo + ", " + hi + "]", ok1 && ok2
	}
	start, end := st.CoveredClustering[0], st.CoveredClustering[1]
	lo, ok1 := format(start.Values)
	hi, ok2 := format(end.Values)
	open, close := "[", "]"
	if start.Kind == sstable.ExclStartBound {
		open = "("
	}
	if end.Kind == sstable.ExclEndBound {
		close = ")"
	}
	return open + lo + ", " + hi + close, ok1 && ok2
}

// TestStatsCompaction: every corpus SSTable carries a cardinality
// estimator, kept raw.
func TestStatsCompaction(t *testing.T) {
	eachCorpusTable(t, func(t *testing.T, mode string, tbl *corpus.CorpusTable) {
		for _, st := range tbl.SSTables {
			s, _, _ := readStatistics(t, tbl, st)
			if len(s.Compaction.Cardinality) == 0 {
				t.Errorf("%s %s/%s: no cardinality estimator bytes", mode, tbl.Name, st.Prefix)
			}
		}
	})
}

// TestStatsFixtures3x: the 3.x (ma…md) Statistics.db files of the public
// fixtures parse, with sane stats.
func TestStatsFixtures3x(t *testing.T) {
	// shared/ lies beside the repository, on developer machines and in
	// CI; without it the test fails, as sstable/big's fixture test does.
	root := filepath.Join("..", "..", "..", "shared", "fixtures", "public")
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("no 3.x fixtures: %v (shared/ must be beside the repository)", err)
	}
	n := 0
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, "-Statistics.db") {
			return err
		}
		d, err := metadata.ParseDescriptor(filepath.Base(path))
		if err != nil {
			return nil // not an SSTable component name
		}
		v, err := metadata.ParseVersion(d.Version, d.Format)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s, err := metadata.ParseStatistics(b, path, v)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		n++
		st := &s.Stats
		if len(st.PartitionSizes) == 0 || len(st.CellsPerPartition) == 0 || len(s.Compaction.Cardinality) == 0 {
			t.Errorf("%s: empty histograms or cardinality", path)
		}
		if st.MinTimestamp > st.MaxTimestamp || st.TotalRows < 0 || st.TotalColumnsSet < 0 {
			t.Errorf("%s: implausible stats %+v", path, st)
		}
		// NB: the header's minimum is only a lower bound for encoding (a
		// default epoch, or a compaction input's).
		if st.MinTimestamp < s.Header.MinTimestamp {
			t.Errorf("%s: stats min timestamp %d below the header's %d", path, st.MinTimestamp, s.Header.MinTimestamp)
		}
		// The README's documented contents: ma-2 is one row written at
		// 1455937221199050; each testtypes1 table holds the one row id = 1.
		if strings.HasSuffix(path, filepath.Join("sstable-tools-3.0", "ma-2-big-Statistics.db")) &&
			(st.MinTimestamp != 1455937221199050 || st.MaxTimestamp != 1455937221199050 || st.TotalRows != 1) {
			t.Errorf("%s: timestamps [%d, %d], %d rows; want the one row at 1455937221199050", path, st.MinTimestamp, st.MaxTimestamp, st.TotalRows)
		}
		if strings.Contains(path, "testtypes1") {
			var partitions int64
			for _, b := range st.PartitionSizes {
				partitions += b.Count
			}
			if partitions != 1 || st.TotalRows != 1 {
				t.Errorf("%s: %d partitions, %d rows; want 1 and 1", path, partitions, st.TotalRows)
			}
		}
		if !st.HasLegacyMinMax || st.HasCoveredClustering || st.FirstKey != nil {
			t.Errorf("%s: version %s read fields it does not have", path, d.Version)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no 3.x Statistics.db found")
	}
}

// TestStatsCorruptionAllModes: in every mode, a truncated STATS or
// COMPACTION component, or bytes left after it, is corruption.
func TestStatsCorruptionAllModes(t *testing.T) {
	corpora := corpus.LoadEach(t)
	for _, mode := range corpus.Modes {
		tbl := corpora[mode].Tables["clustered"]
		t.Run(mode+"/"+tbl.Name, func(t *testing.T) {
			_, b, v := readStatistics(t, tbl, tbl.SSTables[0])
			for n := 0; n < len(b); n++ {
				if _, err := metadata.ParseStatistics(b[:n], "stats", v); !errors.Is(err, sstable.ErrCorruption) {
					t.Fatalf("truncated to %d bytes: got %v, want a corruption error", n, err)
				}
			}
			for off := 0; off < len(b); off++ {
				bad := slices.Clone(b)
				bad[off] ^= 0xff
				// NB: every component is CRC-checked in these versions, so any
				// flip is corruption; without CRCs it need only not panic.
				if _, err := metadata.ParseStatistics(bad, "stats", v); err != nil && !errors.Is(err, sstable.ErrCorruption) {
					t.Fatalf("byte %d flipped: non-corruption error %v", off, err)
				} else if err == nil && v.MetadataChecksum {
					t.Fatalf("byte %d flipped: no error", off)
				}
			}
		})
	}
}

// histogramMin is EstimatedHistogram.min(), as sstablemetadata prints it
// (the reader itself never needs it): the smallest value the first
// non-empty bucket can hold (0 for bucket 0).
func histogramMin(h []metadata.HistogramBucket) int64 {
	for i, b := range h {
		if b.Count > 0 {
			if i == 0 {
				return 0
			}
			return b.Offset + 1
		}
	}
	return 0
}

// histogramMax is EstimatedHistogram.max(): the upper bound of the last
// non-empty bucket, MaxInt64 when the overflow bucket is not empty.
func histogramMax(h []metadata.HistogramBucket) int64 {
	if len(h) == 0 {
		return 0
	}
	if h[len(h)-1].Count > 0 {
		return math.MaxInt64
	}
	for i := len(h) - 2; i >= 0; i-- {
		if h[i].Count > 0 {
			return h[i+1].Offset
		}
	}
	return 0
}
