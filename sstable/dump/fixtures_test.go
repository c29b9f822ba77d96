package dump_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/dump"
)

// fixtures are real SSTables written by Cassandra 3.0/3.11 (shared, read
// only); their README gives the values each holds.
const fixtures = "../../../shared/fixtures/public"

// Test3xFixtures decodes every 3.x fixture and checks the values the
// fixtures' README documents.
func Test3xFixtures(t *testing.T) {
	type want struct {
		file   string // glob, relative to fixtures
		key    string // partition key as sstabledump prints it
		column string
		value  string // JSON as Cassandra's toJSONString prints it
	}
	tt3 := "sstable-to-arrow-3.11/testtypes1/"
	cases := []want{
		{"sstable-tools-3.0/ma-2-big-Data.db", "frodo", "birth_year", `1985`},
		{"sstable-tools-3.0/ma-2-big-Data.db", "frodo", "gender", `"male"`},
		{"sstable-tools-3.0/ma-2-big-Data.db", "frodo", "password", `"pass@"`},
		{"sstable-tools-3.0/ma-2-big-Data.db", "frodo", "state", `"CA"`},
		{"sstable-tools-3.0/ma-3-big-Data.db", "4", "val", `"X"`},
		{"sstable-tools-3.0/ma-4-big-Data.db", "1", "listval", `"1"`},
		{"sstable-tools-3.0/ma-4-big-Data.db", "1", "mapval", `"mapvalue"`},
		{tt3 + "ascii-*/md-1-big-Data.db", "1", "asciival", `"this is an ascii string"`},
		{tt3 + "bigint-*/md-1-big-Data.db", "1", "bigintval", `1234567`},
		{tt3 + "blob-*/md-1-big-Data.db", "1", "blobval", `"0x000004d2"`},
		{tt3 + "boolean-*/md-1-big-Data.db", "1", "booleanval", `true`},
		{tt3 + "date-*/md-1-big-Data.db", "1", "dateval", `"2021-06-25"`},
		{tt3 + "decimal-*/md-1-big-Data.db", "1", "decimalval", `2.71828`},
		{tt3 + "double-*/md-1-big-Data.db", "1", "doubleval", `3.14159`},
		{tt3 + "duration-*/md-1-big-Data.db", "1", "durationval", `"12h30m50ms"`},
		{tt3 + "float-*/md-1-big-Data.db", "1", "floatval", `6.28`},
		{tt3 + "inet-*/md-1-big-Data.db", "1", "inetval", `"127.0.0.1"`},
		{tt3 + "int-*/md-1-big-Data.db", "1", "intval", `420`},
		{tt3 + "smallint-*/md-1-big-Data.db", "1", "smallintval", `123`},
		{tt3 + "text-*/md-1-big-Data.db", "1", "textval", `"this is a text string"`},
		{tt3 + "time-*/md-1-big-Data.db", "1", "timeval", `"02:46:30.000000000"`},
		{tt3 + "timestamp-*/md-1-big-Data.db", "1", "timestampval", `"2021-07-02 20:47:23.000Z"`},
		{tt3 + "tinyint-*/md-1-big-Data.db", "1", "tinyintval", `24`},
		{tt3 + "uuid-*/md-1-big-Data.db", "1", "uuidval", `"0ce82e94-0aa4-497a-83c2-d8f0e0687f12"`},
		{tt3 + "varchar-*/md-1-big-Data.db", "1", "varcharval", `"this is a varchar string"`},
		{tt3 + "varint-*/md-1-big-Data.db", "1", "varintval", `54321`},
		{tt3 + "map-*/md-1-big-Data.db", "1", "mapintintval", `13`},
		{tt3 + "tuple-*/md-1-big-Data.db", "1", "tupleintintval", `[66, 99]`},
		{"sstable-to-arrow-3.11/testalltypes/alltypes-*/md-1-big-Data.db", "foo", "varintval", `7801234567`},
		{"sstable-to-arrow-3.11/testalltypes/alltypes-*/md-1-big-Data.db", "foo", "timestampval", `"2021-06-25 23:40:05.718Z"`},
		{"sstable-to-arrow-3.11/testalltypes/alltypes-*/md-1-big-Data.db", "foo", "uuidval", `"4e944ad2-d60f-11eb-b8bc-0242ac130003"`},
		{"sstable-to-arrow-3.11/testalltypes/alltypes-*/md-1-big-Data.db", "foo", "decimalval", `2.718281828`},
	}
	for _, c := range cases {
		files, err := filepath.Glob(filepath.Join(fixtures, c.file))
		if err != nil || len(files) != 1 {
			t.Fatalf("fixture %s: found %v (%v); the shared fixtures must be beside the repository", c.file, files, err)
		}
		got := cellValues(t, files[0], c.key, c.column)
		if len(got) == 0 {
			t.Errorf("%s key %s: no %s cell", c.file, c.key, c.column)
			continue
		}
		if d := Diff(parse(t, c.value), parse(t, got[0]), c.column); d != "" {
			t.Errorf("%s key %s: %s", c.file, c.key, d)
		}
	}
	// Collections written as several cells: every element must be there.
	set := cellValues(t, glob1(t, tt3+"set_table-*/md-1-big-Data.db"), "1", "setintval")
	list := cellValues(t, glob1(t, tt3+"list-*/md-1-big-Data.db"), "1", "listintval")
	if fmt.Sprint(list) != "[192 168 1 1]" || len(set) != 3 {
		t.Errorf("list cells %v (want 192 168 1 1), set cells %v (want 3)", list, set)
	}
}

func glob1(t *testing.T, pattern string) string {
	files, err := filepath.Glob(filepath.Join(fixtures, pattern))
	if err != nil || len(files) != 1 {
		t.Fatalf("fixture %s: found %v (%v)", pattern, files, err)
	}
	return files[0]
}

// cellValues dumps the file and returns the raw JSON values of the
// column's live cells in the partition.
func cellValues(t *testing.T, file, key, column string) []string {
	t.Helper()
	r, err := sstable.Open(file, sstable.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := dump.Write(&b, r, dump.Options{Keys: []string{key}}); err != nil {
		t.Fatalf("dump %s: %v", file, err)
	}
	var parts []struct {
		Rows []struct {
			Cells []struct {
				Name  string          `json:"name"`
				Value json.RawMessage `json:"value"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &parts); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range parts {
		for _, r := range p.Rows {
			for _, c := range r.Cells {
				if c.Name == column && c.Value != nil {
					out = append(out, string(c.Value))
				}
			}
		}
	}
	return out
}

func parse(t *testing.T, s string) any {
	t.Helper()
	return normalize(t, []byte(s))
}

// TestAll3xFixturesDecode reads every 3.x fixture through, including the
// undocumented mb/mc files (one of a LocalPartitioner system table): each
// must decode completely with every cell typed by its serialization header.
func TestAll3xFixturesDecode(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*", "*-Data.db"))
	more, _ := filepath.Glob(filepath.Join(fixtures, "*", "*", "*", "*-Data.db"))
	files = append(files, more...)
	if len(files) < 30 {
		t.Fatalf("found %d fixture Data.db files", len(files))
	}
	for _, f := range files {
		r, err := sstable.Open(f, sstable.Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		ps, err := dump.Partitions(r, dump.Options{})
		r.Close()
		if err != nil || len(ps) == 0 {
			t.Errorf("%s: %d partitions, %v", f, len(ps), err)
		}
	}
}
