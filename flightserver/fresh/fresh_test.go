package fresh

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/snapshot"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// TestTruncationRecord: system.local's truncated_at values are a
// position (segment id, a long; offset, an int) then a time; shorter is
// an error, never a made-up position.
func TestTruncationRecord(t *testing.T) {
	b := binary.BigEndian.AppendUint64(nil, 1796665865446)
	b = binary.BigEndian.AppendUint32(b, 88642)
	b = binary.BigEndian.AppendUint64(b, 1_800_000_000_000)
	pos, err := truncation(b)
	if err != nil || pos != (commitlog.Position{SegmentID: 1796665865446, Offset: 88642}) {
		t.Fatalf("truncation: %+v, %v", pos, err)
	}
	if _, err := truncation(b[:11]); err == nil {
		t.Fatal("an 11-byte record decoded")
	}
}

// TestOverlayTablesHeaders: a table read from CQL becomes the runs'
// header as Cassandra writes one: the partition key's types a
// CompositeType of several in key order, a DESC clustering column
// reversed, statics and regulars apart, marshal type names.
func TestOverlayTablesHeaders(t *testing.T) {
	tables, err := catalog.ParseCQL(`CREATE TABLE ks.t (a int, b text, c bigint, d timestamp, s text static, v map<text, int>,
		PRIMARY KEY ((b, a), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC) AND ID = 0123abcd-0000-1000-8000-00000000beef`)
	if err != nil {
		t.Fatal(err)
	}
	sch := &catalog.Schema{Tables: tables}
	got := overlayTables(sch)
	id, _ := commitlog.ParseTableID("0123abcd-0000-1000-8000-00000000beef")
	ot, ok := got[id]
	if !ok || len(got) != 1 {
		t.Fatalf("tables %v: want the one with id %x", got, id)
	}
	h := ot.Header
	const m = "org.apache.cassandra.db.marshal."
	if h.KeyType != m+"CompositeType("+m+"UTF8Type,"+m+"Int32Type)" {
		t.Errorf("key type %s", h.KeyType)
	}
	if !slices.Equal(h.ClusteringTypes, []string{m + "ReversedType(" + m + "LongType)", m + "TimestampType"}) {
		t.Errorf("clustering types %v", h.ClusteringTypes)
	}
	if len(h.StaticColumns) != 1 || h.StaticColumns[0].Name != "s" || len(h.RegularColumns) != 1 ||
		!strings.HasPrefix(h.RegularColumns[0].Type, m+"MapType(") {
		t.Errorf("columns: static %v regular %v", h.StaticColumns, h.RegularColumns)
	}
	if _, err := sstable.NewSchema(h); err != nil {
		t.Errorf("the header does not parse: %v", err)
	}
}

// TestRunsWithoutHostIDAreFlushedOnly: before system.local was read, an
// epoch has no runs and says why; a directory naming no table id too.
func TestRunsWithoutHostIDAreFlushedOnly(t *testing.T) {
	l := &Log{}
	runs, f := l.Runs(snapshot.TableDir{ID: "0123456789abcdef0123456789abcdef"}, nil)
	if runs != nil || !strings.Contains(f.FlushedOnly, "host id") || f.Through != "" {
		t.Errorf("no host id: %d runs, %+v", len(runs), f)
	}
	runs, f = l.Runs(snapshot.TableDir{}, nil)
	if runs != nil || !strings.Contains(f.FlushedOnly, "table id") {
		t.Errorf("no table id: %d runs, %+v", len(runs), f)
	}
}
