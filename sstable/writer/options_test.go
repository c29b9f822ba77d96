package writer_test

import (
	"encoding/binary"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/metadata"
	"github.com/sstable-flight/sstable-flight/sstable/writer"
)

// TestOptionsInStatistics: what the caller says of the SSTable's origin
// is what Statistics.db says.
func TestOptionsInStatistics(t *testing.T) {
	h := metadata.SerializationHeader{KeyType: mt + "Int32Type", RegularColumns: []metadata.ColumnType{{Name: "v", Type: mt + "Int32Type"}}}
	host := metadata.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	intervals := []metadata.CommitLogInterval{
		{Start: metadata.CommitLogPosition{SegmentID: 7, Position: 10}, End: metadata.CommitLogPosition{SegmentID: 7, Position: 900}},
		{Start: metadata.CommitLogPosition{SegmentID: 9, Position: 0}, End: metadata.CommitLogPosition{SegmentID: 9, Position: 50}},
	}
	mem := writer.NewMemory()
	w, err := writer.New(mem, writer.Options{Header: h, ID: "42", CommitLogIntervals: intervals, OriginatingHostID: &host,
		RepairedAt: 1234, BloomFilterFPChance: 0.1})
	must(t, err)
	must(t, w.StartPartition([]byte{0, 0, 0, 1}, sstable.DeletionTime{MarkedForDeleteAt: 5, LocalDeletionTime: 6}))
	must(t, w.Finish())
	check(t, w.DataFile() == "oa-42-big-Data.db", "data file %s", w.DataFile())
	r, err := sstable.Open(w.DataFile(), sstable.Options{FS: mem})
	must(t, err)
	defer r.Close()
	st := r.Stats.Stats
	equal(t, intervals, st.CommitLogIntervals)
	equal(t, intervals[0].Start, st.CommitLogLowerBound)
	equal(t, intervals[1].End, st.CommitLogUpperBound)
	equal(t, &host, st.OriginatingHostID)
	equal(t, int64(1234), st.RepairedAt)
	equal(t, 0.1, r.Stats.BloomFilterFPChance)
	equal(t, true, st.HasPartitionLevelDeletions)
	equal(t, "org.apache.cassandra.dht.Murmur3Partitioner", r.Stats.Partitioner)
}

// BenchmarkAdd encodes rows of a few cells.
func BenchmarkAdd(b *testing.B) {
	h := metadata.SerializationHeader{KeyType: mt + "Int32Type", ClusteringTypes: []string{mt + "Int32Type"},
		RegularColumns: []metadata.ColumnType{{Name: "v", Type: mt + "UTF8Type"}, {Name: "n", Type: mt + "LongType"}}}
	w, err := writer.New(writer.NewMemory(), writer.Options{Header: h})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.StartPartition([]byte{0, 0, 0, 1}, sstable.LiveDeletion); err != nil {
		b.Fatal(err)
	}
	u := sstable.Unfiltered{Clustering: [][]byte{make([]byte, 4)}, Liveness: sstable.LivenessInfo{Timestamp: 10}, Deletion: sstable.LiveDeletion,
		Cells: []sstable.Cell{{Column: 0, Timestamp: 10, Value: make([]byte, 8)}, {Column: 1, Timestamp: 10, Value: []byte("a value of some length")}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		binary.BigEndian.PutUint32(u.Clustering[0], uint32(i))
		if err := w.Add(&u); err != nil {
			b.Fatal(err)
		}
	}
}
