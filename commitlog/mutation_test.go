package commitlog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/commitlog"
	"github.com/sstable-flight/sstable-flight/sstable"
)

// decoded is an owned copy of one update, for comparisons.
type decoded struct {
	table    commitlog.TableID
	key      []byte
	deletion sstable.DeletionTime
	static   []string // the static row's columns
	regular  []string // the update's regular columns
	rows     []decodedRow
	pos      commitlog.Position
}

type decodedRow struct {
	static, marker bool
	clustering     [][]byte
	liveness       sstable.LivenessInfo
	deletion       sstable.DeletionTime
	kind           sstable.BoundKind
	markerDel      sstable.DeletionTime
	markerEndDel   sstable.DeletionTime
	cells          []decodedCell
	complex        map[string]sstable.DeletionTime
}

type decodedCell struct {
	column            string
	flags             uint8
	timestamp, ttl    int64
	localDeletionTime int64
	path, value       []byte
}

func cp(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// decodeAll decodes one mutation into owned values.
func decodeAll(dec *commitlog.Decoder, m []byte, mv int) ([]decoded, error) {
	dec.Reset(m, mv)
	var out []decoded
	for dec.NextUpdate() {
		u := dec.Update()
		d := decoded{table: u.Table, key: cp(u.Key), deletion: u.Deletion}
		if u.Columns != nil {
			for _, c := range u.Columns.Static {
				d.static = append(d.static, c.Name)
			}
			for _, c := range u.Columns.Regular {
				d.regular = append(d.regular, c.Name)
			}
		}
		for dec.NextUnfiltered() {
			d.rows = append(d.rows, copyRow(dec.Unfiltered(), u.Columns))
		}
		out = append(out, d)
	}
	return out, dec.Err()
}

// fixtureSchema is cmd/commitloggen's table:
// (k int, c int, v text, s set<text>, PRIMARY KEY (k, c)).
func fixtureSchema() *commitlog.TableSchema {
	return &commitlog.TableSchema{
		Name:       "cl_fixture.kv",
		Key:        "org.apache.cassandra.db.marshal.Int32Type",
		Clustering: []string{"org.apache.cassandra.db.marshal.Int32Type"},
		Columns: map[string]string{
			"v": "org.apache.cassandra.db.marshal.UTF8Type",
			"s": "org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.UTF8Type)",
		},
	}
}

func be32(v int) []byte { return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)} }

// TestDecodeFixtures decodes every entry of the six fixtures' segments
// (commit log versions 7 and 8, each compressor): the workload's 303
// mutations decode to what cmd/commitloggen wrote, and every other
// table's entry is ErrUnknownTable.
func TestDecodeFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			id, err := commitlog.ParseTableID(f.TableID)
			if err != nil {
				t.Fatal(err)
			}
			dec := commitlog.NewDecoder(commitlog.SchemaMap{id: fixtureSchema()})
			segs, err := commitlog.ListDir(f.dir())
			if err != nil {
				t.Fatal(err)
			}
			var ups []decoded
			unknown := 0
			for _, s := range segs {
				r, err := commitlog.Open(s.Path, commitlog.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for r.Next() {
					e := r.Entry()
					got, err := decodeAll(dec, e.Mutation, r.MessagingVersion())
					if errors.Is(err, commitlog.ErrUnknownTable) {
						unknown++
						continue
					}
					if err != nil {
						t.Fatalf("%s at %d: %v", s.Path, e.Position.Offset, err)
					}
					ups = append(ups, got...)
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				r.Close()
			}
			if len(ups) != f.Entries {
				t.Fatalf("%d updates of the table, want %d (%d of other tables)", len(ups), f.Entries, unknown)
			}
			if unknown == 0 {
				t.Errorf("no entry of another table: system tables should be in the log")
			}
			for i := range 300 {
				u := ups[i]
				if string(u.key) != string(be32(i%30)) || len(u.rows) != 1 || u.deletion != sstable.LiveDeletion {
					t.Fatalf("update %d: key %x, %d rows, deletion %v", i, u.key, len(u.rows), u.deletion)
				}
				r := u.rows[0]
				if r.static || r.marker || string(r.clustering[0]) != string(be32(i)) || r.liveness.Timestamp == sstable.NoTimestamp {
					t.Fatalf("update %d: row %+v", i, r)
				}
				if len(r.cells) != 1 || r.cells[0].column != "v" || string(r.cells[0].value) != fmt.Sprintf("clfix-row-%03d", i) ||
					r.cells[0].timestamp != r.liveness.Timestamp {
					t.Fatalf("update %d: cells %+v", i, r.cells)
				}
			}
			ttl := ups[300].rows[0]
			if string(ups[300].key) != string(be32(1000)) || ttl.liveness.TTL != 86400 || ttl.cells[0].ttl != 86400 ||
				ttl.cells[0].localDeletionTime != ttl.liveness.LocalExpirationTime ||
				ttl.liveness.LocalExpirationTime-ttl.liveness.Timestamp/1e6 < 86399 || ttl.liveness.LocalExpirationTime-ttl.liveness.Timestamp/1e6 > 86401 {
				t.Errorf("TTL row %+v", ttl)
			}
			set := ups[301].rows[0]
			if string(ups[301].key) != string(be32(1001)) || set.liveness.Timestamp != sstable.NoTimestamp || len(set.cells) != 2 ||
				string(set.cells[0].path) != "clfix-set-a" || string(set.cells[1].path) != "clfix-set-b" || len(set.cells[0].value) != 0 || set.complex != nil {
				t.Errorf("set row %+v", set)
			}
			del := ups[302]
			if string(del.key) != string(be32(29)) || del.deletion.Live() || len(del.rows) != 0 ||
				del.deletion.LocalDeletionTime != del.deletion.MarkedForDeleteAt/1e6 && del.deletion.LocalDeletionTime != del.deletion.MarkedForDeleteAt/1e6+1 {
				t.Errorf("partition deletion %+v", del)
			}
		})
	}
}

// TestTableID prints ids both ways and reads them back.
func TestTableID(t *testing.T) {
	id, err := commitlog.ParseTableID("e4536860-f246-11f1-9580-f5c80482453a")
	if err != nil {
		t.Fatal(err)
	}
	if id.String() != "e4536860f24611f19580f5c80482453a" || id.UUID() != "e4536860-f246-11f1-9580-f5c80482453a" {
		t.Fatalf("%s %s", id, id.UUID())
	}
	if id2, err := commitlog.ParseTableID(id.String()); err != nil || id2 != id {
		t.Fatalf("%v %v", id2, err)
	}
	for _, bad := range []string{"", "e4536860f24611f19580f5c80482453", "x4536860f24611f19580f5c80482453a"} {
		if _, err := commitlog.ParseTableID(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// fixtureMutations returns the v8-none fixture's table id and a few of
// its workload's mutations: a row, the TTL row, the set update and the
// partition deletion.
func fixtureMutations(t testing.TB) (commitlog.TableID, [][]byte) {
	t.Helper()
	var f fixture
	for _, g := range fixtures(t) {
		if g.Name == "v8-none" {
			f = g
		}
	}
	id, err := commitlog.ParseTableID(f.TableID)
	if err != nil {
		t.Fatal(err)
	}
	var ms [][]byte
	segs, err := commitlog.ListDir(f.dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range segs {
		r, err := commitlog.Open(s.Path, commitlog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			if m := r.Entry().Mutation; ofTable(m, id[:]) {
				ms = append(ms, cp(m))
			}
		}
		r.Close()
	}
	if len(ms) != f.Entries {
		t.Fatalf("%d mutations of the table", len(ms))
	}
	return id, [][]byte{ms[0], ms[300], ms[301], ms[302]}
}

// TestDecodeErrors: an unknown table and an unknown column are told
// apart from corruption and named; every truncation and every byte
// flipped fails or decodes, never panics; errors carry offsets within
// the mutation.
func TestDecodeErrors(t *testing.T) {
	id, ms := fixtureMutations(t)
	row := ms[0]

	dec := commitlog.NewDecoder(commitlog.SchemaMap{})
	_, err := decodeAll(dec, row, 13)
	var me *commitlog.MutationError
	if !errors.Is(err, commitlog.ErrUnknownTable) || errors.Is(err, commitlog.ErrCorruption) || !errors.As(err, &me) ||
		me.Table != id || me.Offset != 1 || !strings.Contains(err.Error(), id.UUID()) {
		t.Fatalf("unknown table: %v", err)
	}

	noV := fixtureSchema()
	delete(noV.Columns, "v")
	dec = commitlog.NewDecoder(commitlog.SchemaMap{id: noV})
	_, err = decodeAll(dec, row, 13)
	if !errors.Is(err, commitlog.ErrUnknownColumn) || errors.Is(err, commitlog.ErrCorruption) || !errors.As(err, &me) ||
		!strings.Contains(err.Error(), `"v"`) || !strings.Contains(err.Error(), "cl_fixture.kv") || me.Offset <= 17 {
		t.Fatalf("unknown column: %v", err)
	}

	badType := fixtureSchema()
	badType.Columns["v"] = "org.apache.cassandra.db.marshal.NoSuchType"
	dec = commitlog.NewDecoder(commitlog.SchemaMap{id: badType})
	if _, err = decodeAll(dec, row, 13); err == nil {
		t.Fatal("a column of an unknown type decoded")
	}

	dec = commitlog.NewDecoder(commitlog.SchemaMap{id: fixtureSchema()})
	if _, err := decodeAll(dec, row, 9); err == nil {
		t.Error("messaging version 9 decoded")
	}
	if _, err := decodeAll(dec, append(cp(row), 0), 13); !errors.Is(err, commitlog.ErrCorruption) || !errors.As(err, &me) || me.Offset != int64(len(row)) {
		t.Errorf("a trailing byte: %v", err)
	}
	for _, m := range ms {
		if _, err := decodeAll(dec, m, 12); err != nil {
			t.Fatalf("at version 12: %v", err)
		}
		for n := range len(m) {
			_, err := decodeAll(dec, m[:n], 13)
			if !errors.Is(err, commitlog.ErrCorruption) || !errors.As(err, &me) || me.Offset < 0 || me.Offset > int64(n) {
				t.Fatalf("cut at %d of %d: %v", n, len(m), err)
			}
		}
		for i := range m {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				b := cp(m)
				b[i] ^= x
				if _, err := decodeAll(dec, b, 13); err != nil && !errors.Is(err, commitlog.ErrCorruption) &&
					!errors.Is(err, commitlog.ErrUnknownTable) && !errors.Is(err, commitlog.ErrUnknownColumn) {
					t.Fatalf("byte %d ^ %#x: %v", i, x, err)
				}
			}
		}
	}
}

// FuzzDecodeMutation: no input panics, and what is decoded is bounded by
// the input (every cell and row takes a byte at least).
func FuzzDecodeMutation(f *testing.F) {
	id, ms := fixtureMutations(f)
	// A second table of more kinds of column (a map, a UDT, a counter, a
	// descending clustering), "v" and "s" among them: the seeds again
	// with its id.
	var rich commitlog.TableID
	rich[0] = 0xee
	richSchema := fixtureSchema()
	richSchema.Name = "fuzz.rich"
	richSchema.Clustering = []string{"org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type)"}
	for name, typ := range map[string]string{
		"m":  "org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type)",
		"a":  "org.apache.cassandra.db.marshal.UserType(ks,61646472,737472656574:org.apache.cassandra.db.marshal.UTF8Type,6e756d:org.apache.cassandra.db.marshal.Int32Type)",
		"n":  "org.apache.cassandra.db.marshal.CounterColumnType",
		"st": "org.apache.cassandra.db.marshal.Int32Type",
	} {
		richSchema.Columns[name] = typ
	}
	for _, m := range ms {
		f.Add(m)
		r := cp(m)
		copy(r[1:17], rich[:])
		f.Add(r)
	}
	schemas := commitlog.SchemaMap{id: fixtureSchema(), rich: richSchema}
	for _, m := range ms {
		r := cp(m)
		copy(r[1:17], rich[:])
		if _, err := decodeAll(commitlog.NewDecoder(schemas), r, 13); err != nil {
			f.Fatalf("a seed of the second table: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dec := commitlog.NewDecoder(schemas)
		for _, v := range []int{12, 13} {
			ups, _ := decodeAll(dec, b, v)
			items := 0
			for _, u := range ups {
				items += 1 + len(u.rows)
				for _, r := range u.rows {
					items += len(r.cells)
				}
			}
			if items > len(b)+1 {
				t.Fatalf("%d items from %d bytes", items, len(b))
			}
		}
	})
}

// BenchmarkDecodeMutation decodes the v8-none fixture's row, TTL, set
// and deletion mutations; after the first round it allocates nothing.
func BenchmarkDecodeMutation(b *testing.B) {
	id, ms := fixtureMutations(b)
	dec := commitlog.NewDecoder(commitlog.SchemaMap{id: fixtureSchema()})
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range ms {
			dec.Reset(m, 13)
			for dec.NextUpdate() {
				for dec.NextUnfiltered() {
				}
			}
			if err := dec.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
