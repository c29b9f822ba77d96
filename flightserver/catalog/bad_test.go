package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestParseCQLErrors feeds malformed schemas: each must fail with a
// SyntaxError at the right line and column, naming the statement.
func TestParseCQLErrors(t *testing.T) {
	for _, tc := range []struct {
		text      string
		line, col int
		stmt, msg string
	}{
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v list<int);", 1, 49, "CREATE TABLE ks.t", "expected '>'"},
		{"CREATE TABLE ks.t (\n  k int PRIMARY KEY,\n  v map<int>\n);", 3, 5, "CREATE TABLE ks.t", "map takes 2 type parameters"},
		{"CREATE TABLE ks.t (k int, v int);", 1, 14, "CREATE TABLE ks.t", "no PRIMARY KEY"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<nope>);", 1, 48, "CREATE TABLE ks.t", "unknown type ks.nope"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v vector<float, 0>);", 1, 55, "CREATE TABLE ks.t", "bad vector dimension"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v vector<float, 99999999999>);", 1, 55, "CREATE TABLE ks.t", "bad vector dimension"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v vector<bigint, 1000000000>);", 1, 41, "CREATE TABLE ks.t", "too large"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v int<int>);", 1, 41, "CREATE TABLE ks.t", "takes no parameters"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v 'Foo');", 1, 41, "CREATE TABLE ks.t", "bad custom type"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, k text);", 1, 39, "CREATE TABLE ks.t", "defined twice"},
		{"CREATE TABLE ks.t (k int, PRIMARY KEY (x));", 1, 27, "CREATE TABLE ks.t", "x is not defined"},
		{"CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (k DESC);", 1, 80, "CREATE TABLE ks.t", "not a clustering column"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY) WITH ID = 12;", 1, 49, "CREATE TABLE ks.t", "bad table id"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY) WITH COMPACT STORAGE;", 1, 44, "CREATE TABLE ks.t", "COMPACT STORAGE"},
		{"CREATE TABLE t (k int PRIMARY KEY);", 1, 14, "CREATE TABLE t", "no keyspace"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v int);\nALTER TABLE ks.t DROP v;", 2, 24, "ALTER TABLE ks.t DROP v", "USING TIMESTAMP"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v int);\nALTER TABLE ks.t DROP k USING TIMESTAMP 1;", 2, 23, "ALTER TABLE ks.t DROP k USING", "key column"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v int);\nALTER TABLE ks.t ADD v int;", 2, 22, "ALTER TABLE ks.t ADD v int", "already exists"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v int);\nALTER TABLE ks.t ADD w int PRIMARY KEY;", 2, 22, "ALTER TABLE ks.t ADD w int", "cannot add a PRIMARY KEY column"},
		{"ALTER TABLE ks.nope ADD v int;", 1, 13, "ALTER TABLE ks.nope ADD v int", "unknown table"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v text);\nINSERT INTO ks.t (k) VALUES (1);", 2, 1, "INSERT INTO ks.t", "unexpected statement"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v text) WITH comment = 'open;", 1, 62, "", "unterminated string"},
		{"CREATE TABLE \"ks.t (k int PRIMARY KEY);", 1, 14, "", "unterminated quoted identifier"},
		{"/* never closed", 1, 16, "", "unterminated /* comment"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY) # oops;", 1, 39, "", "unexpected character"},
		{"CREATE TYPE ks.a (x frozen<b>);\nCREATE TYPE ks.b (y frozen<a>);\nCREATE TABLE ks.t (k int PRIMARY KEY, v frozen<a>);", 2, 28, "CREATE TYPE ks.b", "contains itself"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v " + strings.Repeat("list<", 200) + "int" + strings.Repeat(">", 200) + ");", 1, 546, "CREATE TABLE ks.t", "nested deeper"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v text MASKED WITH f(1, 2);", 1, 65, "CREATE TABLE ks.t", "expected ')', found end of input"},
		{"CREATE TABLE ks.t (k int PRIMARY KEY, v text) WITH x = {1: (2;", 1, 62, "CREATE TABLE ks.t", "unbalanced"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			_, err := ParseCQL(tc.text)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("%q: error %v, want a *SyntaxError", tc.text, err)
				return
			}
			if se.Line != tc.line || se.Col != tc.col || se.Statement != tc.stmt || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("%q:\n got %d:%d %q %q\nwant %d:%d %q %q", tc.text, se.Line, se.Col, se.Statement, se.Msg, tc.line, tc.col, tc.stmt, tc.msg)
			}
		})
	}
}

// TestParseCQLExpansionBudget: user types that each hold the previous one
// twice would expand to 2^40 nodes; the resolver must stop early.
func TestParseCQLExpansionBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TYPE ks.t0 (x int);\n")
	for i := 1; i <= 40; i++ {
		prev := "t" + itoa(i-1)
		b.WriteString("CREATE TYPE ks.t" + itoa(i) + " (a frozen<" + prev + ">, b frozen<" + prev + ">);\n")
	}
	b.WriteString("CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<t40>);\n")
	start := time.Now()
	_, err := ParseCQL(b.String())
	if err == nil || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("error %v, want the node budget error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestReadCQLFileNamesFile: a file's error names the file and position.
func TestReadCQLFileNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), SchemaFile)
	if err := os.WriteFile(path, []byte("CREATE KEYSPACE ks WITH replication = {};\n\nCREATE TABLE ks.t (k int PRIMARY KEY, v lst<int>);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadCQLFile(path)
	if err == nil {
		t.Fatal("no error")
	}
	want := path + `:3:41: in "CREATE TABLE ks.t": type lst takes no parameters`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to contain %q", err, want)
	}
	if _, err := ReadCQLFile(filepath.Join(t.TempDir(), "missing.cql")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestValidName pins the names that may be joined into a path.
func TestValidName(t *testing.T) {
	for _, s := range []string{"a", "corpus", "Mixed_Case_1", strings.Repeat("x", 48)} {
		if !ValidName(s) {
			t.Errorf("ValidName(%q) = false", s)
		}
	}
	for _, s := range []string{"", "..", "a/b", `a\b`, "a.b", "a-b", "a b", "a\x00", "é", strings.Repeat("x", 49)} {
		if ValidName(s) {
			t.Errorf("ValidName(%q) = true", s)
		}
	}
}
