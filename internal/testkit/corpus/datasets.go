package corpus

import (
	"fmt"
	"strings"
)

// Keyspace holds every corpus table.
const Keyspace = "corpus"

// Rounds is the number of write rounds; the keyspace is flushed after each,
// so a table written in every round has three overlapping generations.
const Rounds = 3

// Scale sizes the bulk tables. The committed corpus uses Small; the test
// suite regenerates the full corpus with Full.
type Scale struct {
	Name           string
	ManyPartitions int // partitions of corpus.many (≥ 3×128 for several Summary.db entries)
	WideRows       int // rows per partition of corpus.wide (≥ 4 KiB row-index blocks)
	CompPartitions int // partitions of each compression table, 20 rows each
}

var (
	Small = Scale{Name: "small", ManyPartitions: 520, WideRows: 300, CompPartitions: 20}
	Full  = Scale{Name: "full", ManyPartitions: 5000, WideRows: 3000, CompPartitions: 400}
)

// ParseScale accepts "small" or "full".
func ParseScale(s string) (Scale, error) {
	switch s {
	case Small.Name:
		return Small, nil
	case Full.Name:
		return Full, nil
	}
	return Scale{}, fmt.Errorf("parse corpus scale %q: want small or full", s)
}

// Table is one corpus table: its schema and the statements of each round.
type Table struct {
	Name string
	// Create holds CREATE TYPE and CREATE TABLE statements, in order.
	Create []string
	// Round returns the statements written before flush number round
	// (0-based). Statements are plain CQL; a nil result writes nothing.
	Round func(round int, sc Scale) []string
}

// Tables lists the corpus tables. Statements name the keyspace explicitly.
var Tables = []Table{
	allTypes, counters, collections, udts, clustered, deletions, ttls,
	timestamps, wide, many, dropped,
	compression("comp_lz4", "{'class': 'LZ4Compressor'}"),
	compression("comp_snappy", "{'class': 'SnappyCompressor'}"),
	compression("comp_deflate", "{'class': 'DeflateCompressor'}"),
	compression("comp_zstd", "{'class': 'ZstdCompressor', 'compression_level': 3}"),
	compression("comp_none", "{'enabled': false}"),
	compression("comp_lz4_4k", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}"),
}

func rounds(r ...[]string) func(int, Scale) []string {
	return func(i int, _ Scale) []string {
		if i < len(r) {
			return r[i]
		}
		return nil
	}
}

// allTypes holds one column of every native CQL type except counter, and
// rows of edge values: max, min, zero/empty, non-finite, subnormal, pre-1970
// and an all-null row that exists only through its primary-key liveness.
var allTypes = Table{
	Name: "all_types",
	Create: []string{`CREATE TABLE corpus.all_types (
		id int PRIMARY KEY,
		c_ascii ascii, c_bigint bigint, c_blob blob, c_boolean boolean, c_date date,
		c_decimal decimal, c_double double, c_duration duration, c_float float, c_inet inet,
		c_int int, c_smallint smallint, c_text text, c_time time, c_timestamp timestamp,
		c_timeuuid timeuuid, c_tinyint tinyint, c_uuid uuid, c_varchar varchar, c_varint varint,
		c_vector vector<float, 3>)`},
	Round: rounds([]string{
		`INSERT INTO corpus.all_types (id, c_ascii, c_bigint, c_blob, c_boolean, c_date, c_decimal, c_double, c_duration, c_float, c_inet, c_int, c_smallint, c_text, c_time, c_timestamp, c_timeuuid, c_tinyint, c_uuid, c_varchar, c_varint, c_vector)
		 VALUES (1, 'max~', 9223372036854775807, 0xffffffffffffffff, true, '9999-12-31', 123456789012345678901234567890.123456789, 1.7976931348623157E308, 1y2mo3w4d5h6m7s8ms9us10ns, 3.4028235E38, '255.255.255.255', 2147483647, 32767, 'héllo wörld ✓ 日本', '23:59:59.999999999', '9999-12-31 23:59:59.999+0000', d2177dd0-eaa2-11de-a572-001b779c76e3, 127, ffffffff-ffff-ffff-ffff-ffffffffffff, 'varchar max', 1267650600228229401496703205376, [3.4028235E38, 1.0, -1.0])`,
		`INSERT INTO corpus.all_types (id, c_ascii, c_bigint, c_blob, c_boolean, c_date, c_decimal, c_double, c_duration, c_float, c_inet, c_int, c_smallint, c_text, c_time, c_timestamp, c_timeuuid, c_tinyint, c_uuid, c_varchar, c_varint, c_vector)
		 VALUES (2, 'min', -9223372036854775808, 0x00, false, '1901-12-13', -123456789012345678901234567890.123456789, -1.7976931348623157E308, -1y2mo3d, -3.4028235E38, '0.0.0.0', -2147483648, -32768, 'negative', '00:00:00.000000001', '1900-01-01 00:00:00.000+0000', 00000000-0000-1000-8080-808080808080, -128, 00000000-0000-0000-0000-000000000000, 'varchar min', -1267650600228229401496703205376, [-3.4028235E38, -0.0, 1.17549435E-38])`,
		`INSERT INTO corpus.all_types (id, c_ascii, c_bigint, c_blob, c_boolean, c_date, c_decimal, c_double, c_duration, c_float, c_inet, c_int, c_smallint, c_text, c_time, c_timestamp, c_timeuuid, c_tinyint, c_uuid, c_varchar, c_varint, c_vector)
		 VALUES (3, '', 0, 0x, false, '1970-01-01', 0.00, 0.0, 0s, 0.0, '::', 0, 0, '', '00:00:00', '1970-01-01 00:00:00.000+0000', 5a1b0e80-0000-1000-8000-000000000000, 0, 01234567-89ab-cdef-0123-456789abcdef, '', 0, [0.0, 0.0, 0.0])`,
		`INSERT INTO corpus.all_types (id, c_double, c_float, c_inet, c_date, c_timestamp, c_decimal, c_varint, c_vector, c_duration)
		 VALUES (4, NaN, NaN, '2001:db8::ff00:42:8329', '1969-12-31', '1969-12-31 23:59:59.999+0000', 1E+10, 99999999999999999999999999999999999999999, [NaN, Infinity, -Infinity], 90s)`,
		`INSERT INTO corpus.all_types (id, c_double, c_float, c_inet, c_date, c_timestamp, c_decimal, c_varint, c_duration)
		 VALUES (5, Infinity, -Infinity, 'fe80::1:2:3:4', '0001-01-01', '0001-01-01 00:00:00.000+0000', -0.000000000000000000001, -1, 1mo)`,
		`INSERT INTO corpus.all_types (id, c_double, c_float, c_inet, c_text, c_blob, c_decimal)
		 VALUES (6, -Infinity, Infinity, '::ffff:192.0.2.1', 'multi
line	tab "quote"', 0x0102030405060708090a0b0c0d0e0f10, 3.14159265358979323846264338327950288)`,
		`INSERT INTO corpus.all_types (id, c_double, c_float, c_ascii)
		 VALUES (7, 4.9E-324, 1.4E-45, 'subnormal')`,
		`INSERT INTO corpus.all_types (id) VALUES (8)`,
	}),
}

// counters are updated across all three flushes, with negative deltas and a
// partition touched in one round only.
var counters = Table{
	Name:   "counters",
	Create: []string{`CREATE TABLE corpus.counters (id int, bucket text, hits counter, misses counter, PRIMARY KEY (id, bucket))`},
	Round: rounds(
		[]string{
			`UPDATE corpus.counters SET hits = hits + 5, misses = misses + 1 WHERE id = 1 AND bucket = 'a'`,
			`UPDATE corpus.counters SET hits = hits + 1 WHERE id = 1 AND bucket = 'b'`,
			`UPDATE corpus.counters SET hits = hits + 9223372036854775807 WHERE id = 2 AND bucket = 'max'`,
		},
		[]string{
			`UPDATE corpus.counters SET hits = hits + 10, misses = misses - 3 WHERE id = 1 AND bucket = 'a'`,
			`UPDATE corpus.counters SET hits = hits - 100 WHERE id = 3 AND bucket = 'neg'`,
		},
		[]string{
			`UPDATE corpus.counters SET hits = hits + 100 WHERE id = 1 AND bucket = 'a'`,
			`UPDATE corpus.counters SET misses = misses + 7 WHERE id = 1 AND bucket = 'b'`,
			`UPDATE corpus.counters SET hits = hits - 1 WHERE id = 2 AND bucket = 'max'`,
		},
	),
}

// collections covers frozen and non-frozen list, set and map, nested frozen
// collections, element additions and removals, and whole-collection
// overwrites and deletions across generations.
var collections = Table{
	Name: "collections",
	Create: []string{`CREATE TABLE corpus.collections (
		id int PRIMARY KEY,
		l list<int>, s set<text>, m map<text, int>,
		fl frozen<list<text>>, fs frozen<set<int>>, fm frozen<map<int, text>>,
		nested frozen<map<text, frozen<list<int>>>>,
		lset list<frozen<set<int>>>, mset map<int, frozen<set<text>>>,
		ts set<timestamp>, mblob map<blob, double>)`},
	Round: rounds(
		[]string{
			`INSERT INTO corpus.collections (id, l, s, m, fl, fs, fm, nested, lset, mset, ts, mblob) VALUES (1, [1, 2, 3], {'a', 'b', 'c'}, {'x': 1, 'y': 2}, ['p', 'q'], {3, 1, 2}, {1: 'one', 2: 'two'}, {'k': [1, 2], 'j': []}, [{1, 2}, {3}], {1: {'a'}, 2: {}}, {'1969-07-20 20:17:40+0000', '2000-01-01 00:00:00+0000'}, {0x: 1.5, 0x00ff: -0.0})`,
			`INSERT INTO corpus.collections (id, l, s, m) VALUES (2, [10, 20], {'only'}, {'keep': 1, 'drop': 2})`,
			`INSERT INTO corpus.collections (id, l, fl, fs, fm) VALUES (3, [], [], {}, {})`,
			`INSERT INTO corpus.collections (id, s, m) VALUES (4, {'gone'}, {'gone': 0})`,
		},
		[]string{
			`UPDATE corpus.collections SET l = l + [4, 5], s = s + {'d'}, m['z'] = 26 WHERE id = 1`,
			`UPDATE corpus.collections SET l = [0] + l, s = s - {'a'} WHERE id = 1`,
			`DELETE m['drop'] FROM corpus.collections WHERE id = 2`,
			`UPDATE corpus.collections SET m = {'new': 100} WHERE id = 4`,
			`UPDATE corpus.collections SET mset[3] = {'x', 'y'} WHERE id = 1`,
		},
		[]string{
			`DELETE l[0] FROM corpus.collections WHERE id = 1`,
			`UPDATE corpus.collections SET l[1] = 99 WHERE id = 2`,
			`DELETE s FROM corpus.collections WHERE id = 4`,
			`UPDATE corpus.collections SET fl = ['frozen', 'overwritten'], fm = null WHERE id = 1`,
			`UPDATE corpus.collections SET s = {'replaced'} WHERE id = 2`,
		},
	),
}

// udts covers frozen and non-frozen user types, nested frozen types, UDT
// field updates and tuples, including a nested tuple and a null field.
var udts = Table{
	Name: "udts",
	Create: []string{
		`CREATE TYPE corpus.address (street text, zip int, tags frozen<set<text>>)`,
		`CREATE TYPE corpus.person (name text, home frozen<address>, phones list<text>, born date)`,
		`CREATE TABLE corpus.udts (
			id int PRIMARY KEY,
			addr address, faddr frozen<address>, who frozen<person>,
			addrs list<frozen<address>>,
			tup tuple<int, text, frozen<list<int>>>,
			ntup tuple<int, tuple<text, double>>,
			tmap map<text, frozen<tuple<int, boolean>>>)`,
	},
	Round: rounds(
		[]string{
			`INSERT INTO corpus.udts (id, addr, faddr, who, addrs, tup, ntup, tmap) VALUES (1, {street: 'Main St', zip: 12345, tags: {'home', 'old'}}, {street: 'Frozen Rd', zip: null, tags: {}}, {name: 'Ada', home: {street: 'Lane', zip: 1, tags: null}, phones: ['+1', '+2'], born: '1815-12-10'}, [{street: 'A', zip: 1, tags: null}, {street: 'B', zip: 2, tags: {'t'}}], (1, 'one', [1]), (2, ('two', 2.5)), {'k': (7, true)})`,
			`INSERT INTO corpus.udts (id, addr, tup) VALUES (2, {street: 'Partial'}, (null, 'nulls', null))`,
			`INSERT INTO corpus.udts (id, faddr) VALUES (3, {street: '', zip: 0})`,
		},
		[]string{
			`UPDATE corpus.udts SET addr.zip = 54321 WHERE id = 1`,
			`UPDATE corpus.udts SET addr.street = null WHERE id = 2`,
			`UPDATE corpus.udts SET addr = {street: 'Replaced', zip: 9} WHERE id = 3`,
		},
	),
}

// clustered has a composite partition key, three clustering columns with
// mixed ASC/DESC order, static columns, and a partition with static data
// only.
var clustered = Table{
	Name: "clustered",
	Create: []string{`CREATE TABLE corpus.clustered (
		tenant text, bucket int, c_int int, c_text text, c_ts timestamp,
		s_note text STATIC, s_count int STATIC, v text, w bigint,
		PRIMARY KEY ((tenant, bucket), c_int, c_text, c_ts))
		WITH CLUSTERING ORDER BY (c_int ASC, c_text DESC, c_ts ASC)`},
	Round: func(r int, _ Scale) []string {
		var out []string
		switch r {
		case 0:
			for _, tenant := range []string{"acme", "globex", "é-unicode", ""} {
				for b := range 3 {
					out = append(out, fmt.Sprintf(`INSERT INTO corpus.clustered (tenant, bucket, s_note, s_count) VALUES ('%s', %d, 'static of %s/%d', %d)`, tenant, b, tenant, b, b*10))
					for c := range 4 {
						for _, t := range []string{"alpha", "beta", ""} {
							out = append(out, fmt.Sprintf(`INSERT INTO corpus.clustered (tenant, bucket, c_int, c_text, c_ts, v, w) VALUES ('%s', %d, %d, '%s', %d, 'v-%d-%s', %d)`,
								tenant, b, c-1, t, int64(c)*86400000-3600000, c, t, int64(b)*1_000_000+int64(c)))
						}
					}
				}
			}
			out = append(out, `INSERT INTO corpus.clustered (tenant, bucket, s_note) VALUES ('static-only', 0, 'no rows here')`)
		case 1:
			out = append(out,
				`UPDATE corpus.clustered SET s_note = 'static updated' WHERE tenant = 'acme' AND bucket = 0`,
				`UPDATE corpus.clustered SET v = 'updated' WHERE tenant = 'acme' AND bucket = 1 AND c_int = 0 AND c_text = 'beta' AND c_ts = 82800000`)
		}
		return out
	},
}

// deletions covers every deletion kind, spread over generations so that a
// tombstone and the data it shadows live in different SSTables.
var deletions = Table{
	Name: "deletions",
	Create: []string{`CREATE TABLE corpus.deletions (
		p int, c int, st text STATIC, v text, n int, m map<text, text>, s set<int>,
		PRIMARY KEY (p, c))`},
	Round: func(r int, _ Scale) []string {
		var out []string
		switch r {
		case 0:
			for p := 1; p <= 12; p++ {
				out = append(out, fmt.Sprintf(`INSERT INTO corpus.deletions (p, st) VALUES (%d, 'static %d')`, p, p))
				for c := range 20 {
					out = append(out, fmt.Sprintf(`INSERT INTO corpus.deletions (p, c, v, n, m, s) VALUES (%d, %d, 'v%d.%d', %d, {'k1': 'a', 'k2': 'b'}, {1, 2, 3})`, p, c, p, c, p*100+c))
				}
			}
			// A row that exists only through UPDATE: no primary-key liveness.
			out = append(out, `UPDATE corpus.deletions SET v = 'update-only' WHERE p = 10 AND c = 100`)
		case 1:
			out = append(out,
				`DELETE FROM corpus.deletions WHERE p = 1`,                          // partition
				`DELETE FROM corpus.deletions WHERE p = 2 AND c = 5`,                // row
				`DELETE FROM corpus.deletions WHERE p = 3 AND c >= 3 AND c < 7`,     // range: inclusive start, exclusive end
				`DELETE FROM corpus.deletions WHERE p = 4 AND c > 10`,               // range: exclusive start, open end
				`DELETE FROM corpus.deletions WHERE p = 5 AND c <= 4`,               // range: open start, inclusive end
				`DELETE FROM corpus.deletions WHERE p = 6 AND c > 2 AND c <= 8`,     // range: exclusive start, inclusive end
				`DELETE v FROM corpus.deletions WHERE p = 7 AND c = 1`,              // cell
				`DELETE m['k1'] FROM corpus.deletions WHERE p = 7 AND c = 2`,        // map element
				`UPDATE corpus.deletions SET s = s - {2} WHERE p = 7 AND c = 3`,     // set element
				`UPDATE corpus.deletions SET m = {'k9': 'z'} WHERE p = 7 AND c = 4`, // collection overwrite
				`DELETE m FROM corpus.deletions WHERE p = 7 AND c = 5`,              // whole collection
				`DELETE st FROM corpus.deletions WHERE p = 8`,                       // static cell
				`DELETE v FROM corpus.deletions WHERE p = 10 AND c = 100`,           // update-only row loses its last cell
				// Rows deleted in a partition whose static column stays live.
				`DELETE FROM corpus.deletions WHERE p = 11 AND c >= 0`,
			)
			// Two overlapping range deletions in one memtable: the later one
			// wins where they overlap, which Cassandra writes as a boundary.
			out = append(out,
				`DELETE FROM corpus.deletions USING TIMESTAMP 9000000000000000 WHERE p = 9 AND c >= 0 AND c < 10`,
				`DELETE FROM corpus.deletions USING TIMESTAMP 9000000000000001 WHERE p = 9 AND c >= 5 AND c < 15`)
		case 2:
			out = append(out,
				`INSERT INTO corpus.deletions (p, c, v) VALUES (1, 3, 'after partition delete')`,
				`INSERT INTO corpus.deletions (p, c, v) VALUES (3, 4, 'after range delete')`,
				`DELETE FROM corpus.deletions WHERE p = 12 AND c >= 5 AND c <= 5`,
				`DELETE n FROM corpus.deletions WHERE p = 12 AND c = 6`,
			)
		}
		return out
	},
}

// ttls covers row TTLs (INSERT USING TTL) and cell TTLs (UPDATE USING TTL),
// long ones still live and one-second ones expired by the time the corpus
// reads its expected rows, plus a table-level default TTL.
var ttls = Table{
	Name: "ttls",
	Create: []string{`CREATE TABLE corpus.ttls (p int, c int, v text, w int, PRIMARY KEY (p, c))
		WITH default_time_to_live = 0`},
	Round: rounds(
		[]string{
			`INSERT INTO corpus.ttls (p, c, v, w) VALUES (1, 1, 'row ttl live', 1) USING TTL 315360000`,
			`INSERT INTO corpus.ttls (p, c, v, w) VALUES (1, 2, 'row ttl expired', 2) USING TTL 1`,
			`INSERT INTO corpus.ttls (p, c, v, w) VALUES (2, 1, 'no ttl', 3)`,
			`UPDATE corpus.ttls USING TTL 1 SET v = 'cell ttl expired' WHERE p = 2 AND c = 1`,
			`UPDATE corpus.ttls USING TTL 315360000 SET w = 4 WHERE p = 2 AND c = 2`,
			`UPDATE corpus.ttls USING TTL 1 SET v = 'update-only expired' WHERE p = 3 AND c = 1`,
		},
		[]string{
			`INSERT INTO corpus.ttls (p, c, v) VALUES (4, 1, 'ttl in gen 2') USING TTL 315360000`,
			`UPDATE corpus.ttls USING TTL 1 SET w = 5 WHERE p = 1 AND c = 1`,
		},
		[]string{
			`INSERT INTO corpus.ttls (p, c, v, w) VALUES (5, 1, 'expires at read', 6) USING TTL 1`,
			`INSERT INTO corpus.ttls (p, c, v, w) VALUES (5, 2, 'mixed', 7) USING TTL 315360000`,
			`UPDATE corpus.ttls USING TTL 1 SET v = 'mixed cell expired' WHERE p = 5 AND c = 2`,
		},
	),
}

// timestamps covers explicit USING TIMESTAMP writes that conflict across
// flushes: older writes arriving later, equal timestamps (the larger value
// wins; a deletion beats a live cell), and deletions shadowing older writes.
var timestamps = Table{
	Name:   "timestamps",
	Create: []string{`CREATE TABLE corpus.timestamps (p int, c int, v text, w text, PRIMARY KEY (p, c))`},
	Round: rounds(
		[]string{
			`INSERT INTO corpus.timestamps (p, c, v, w) VALUES (1, 1, 'b', 'first') USING TIMESTAMP 1000`,
			`INSERT INTO corpus.timestamps (p, c, v, w) VALUES (1, 2, 'newer', 'x') USING TIMESTAMP 2000`,
			`INSERT INTO corpus.timestamps (p, c, v, w) VALUES (1, 3, 'tie vs delete', 'y') USING TIMESTAMP 3000`,
			`INSERT INTO corpus.timestamps (p, c, v) VALUES (2, 1, 'shadowed') USING TIMESTAMP 1000`,
			`INSERT INTO corpus.timestamps (p, c, v) VALUES (3, 1, 'survives') USING TIMESTAMP 5000`,
		},
		[]string{
			`INSERT INTO corpus.timestamps (p, c, v, w) VALUES (1, 1, 'a', 'second') USING TIMESTAMP 1000`,
			`INSERT INTO corpus.timestamps (p, c, v) VALUES (1, 2, 'older, written later') USING TIMESTAMP 1500`,
			`DELETE FROM corpus.timestamps USING TIMESTAMP 1500 WHERE p = 2`,
			`DELETE FROM corpus.timestamps USING TIMESTAMP 4000 WHERE p = 3 AND c = 1`,
		},
		[]string{
			`DELETE v FROM corpus.timestamps USING TIMESTAMP 3000 WHERE p = 1 AND c = 3`,
			`INSERT INTO corpus.timestamps (p, c, v, w) VALUES (1, 1, 'c', 'third') USING TIMESTAMP 1000`,
			`INSERT INTO corpus.timestamps (p, c, v) VALUES (2, 2, 'after partition delete') USING TIMESTAMP 1400`,
			`INSERT INTO corpus.timestamps (p, c, v) VALUES (2, 3, 'newer than partition delete') USING TIMESTAMP 1600`,
		},
	),
}

// dropped has columns dropped between generations, one of them re-added:
// cells written before a column's drop time must stay hidden, also after
// the column comes back (system_schema.dropped_columns).
var dropped = Table{
	Name:   "dropped",
	Create: []string{`CREATE TABLE corpus.dropped (id int PRIMARY KEY, a text, b text, c int, m map<text, int>)`},
	Round: rounds(
		[]string{
			`INSERT INTO corpus.dropped (id, a, b, c, m) VALUES (1, 'a1', 'b1', 1, {'k': 1})`,
			`INSERT INTO corpus.dropped (id, a, b, c, m) VALUES (2, 'a2', 'b2', 2, {'k': 2})`,
			`INSERT INTO corpus.dropped (id, b) VALUES (3, 'only b')`,
		},
		[]string{
			`ALTER TABLE corpus.dropped DROP b`,
			`ALTER TABLE corpus.dropped DROP m`,
			`INSERT INTO corpus.dropped (id, a, c) VALUES (4, 'a4', 4)`,
			`UPDATE corpus.dropped SET c = 20 WHERE id = 2`,
		},
		[]string{
			`ALTER TABLE corpus.dropped ADD b text`,
			`INSERT INTO corpus.dropped (id, a, b) VALUES (5, 'a5', 'b5 after re-add')`,
			`UPDATE corpus.dropped SET b = 'b1 after re-add' WHERE id = 1`,
		},
	),
}

// wide has partitions large enough for several row-index blocks (Index.db
// IndexInfo entries in BIG, multi-block Rows.db entries in BTI), and a
// range deletion that spans block boundaries.
var wide = Table{
	Name:   "wide",
	Create: []string{`CREATE TABLE corpus.wide (p int, c int, v text, PRIMARY KEY (p, c))`},
	Round: func(r int, sc Scale) []string {
		var out []string
		switch r {
		case 0:
			pad := strings.Repeat("w", 90)
			for p := range 3 {
				for c := range sc.WideRows {
					out = append(out, fmt.Sprintf(`INSERT INTO corpus.wide (p, c, v) VALUES (%d, %d, '%s-%d-%d')`, p, c, pad, p, c))
				}
			}
			// An old range deletion in the same flush as the (newer) rows
			// it spans: its markers stay in this SSTable around rows of
			// several row-index blocks, so the index records it open at
			// block boundaries.
			out = append(out, fmt.Sprintf(`DELETE FROM corpus.wide USING TIMESTAMP 1 WHERE p = 2 AND c >= %d AND c < %d`, sc.WideRows/6, sc.WideRows*5/6))
		case 1:
			out = append(out, fmt.Sprintf(`DELETE FROM corpus.wide WHERE p = 1 AND c >= %d AND c < %d`, sc.WideRows/4, sc.WideRows/2))
		}
		return out
	},
}

// many has enough small partitions for several Summary.db entries (one per
// 128 partitions by default) and a multi-entry BTI partition trie.
var many = Table{
	Name:   "many",
	Create: []string{`CREATE TABLE corpus.many (id bigint PRIMARY KEY, v int)`},
	Round: func(r int, sc Scale) []string {
		if r != 0 {
			return nil
		}
		out := make([]string, 0, sc.ManyPartitions)
		for i := range sc.ManyPartitions {
			out = append(out, fmt.Sprintf(`INSERT INTO corpus.many (id, v) VALUES (%d, %d)`, int64(i)*7919-1_000_000, i))
		}
		return out
	},
}

// compression builds one table per compression setting with enough data
// for several compressed chunks.
func compression(name, opts string) Table {
	return Table{
		Name: name,
		Create: []string{fmt.Sprintf(`CREATE TABLE corpus.%s (id int, c int, v text, n bigint, d double, PRIMARY KEY (id, c))
			WITH compression = %s`, name, opts)},
		Round: func(r int, sc Scale) []string {
			if r != 0 {
				return nil
			}
			var out []string
			for id := range sc.CompPartitions {
				for c := range 20 {
					out = append(out, fmt.Sprintf(`INSERT INTO corpus.%s (id, c, v, n, d) VALUES (%d, %d, 'row %d of partition %d, compressible text text text', %d, %d.25)`,
						name, id, c, c, id, int64(id)*1_000_003+int64(c), c))
				}
			}
			return out
		},
	}
}
