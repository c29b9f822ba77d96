package flightserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sstable-flight/sstable-flight/flightserver"
	"github.com/sstable-flight/sstable-flight/flightserver/catalog"
	"github.com/sstable-flight/sstable-flight/flightserver/tables"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// TestInetKeysMatchCQL looks rows up by inet partition keys and clustering
// bounds written as text, in the forms CQL's literals take (Java's
// InetAddress.getByName): an IPv4-mapped IPv6 address is the IPv4
// address's 4 bytes, an IPv4-compatible one stays 16 bytes, IPv4 may have
// fewer than four parts, IPv6 may be in brackets. Each lookup must return
// exactly CQL's rows for the same text, through the fast command parser
// and through encoding/json's (a JSON escape sends a command there).
func TestInetKeysMatchCQL(t *testing.T) {
	node := cassandratest.Shared(t)
	ctx := context.Background()
	const ks = "flight_inet"
	s := node.FreshKeyspace(t, ks,
		"CREATE TABLE "+ks+".t (d inet, c inet, v int, PRIMARY KEY (d, c))")
	rows := []struct {
		d, c string
	}{
		{"1.2.3.4", "10.0.0.1"},
		{"1.2.3.4", "::ffff:10.0.0.2"}, // stored as 10.0.0.2
		{"1.2.3.4", "10.0.0.3"},
		{"1.2.3.4", "::10.0.0.4"}, // IPv4-compatible: 16 bytes, sorts first
		{"1.2.3.4", "2001:db8::5"},
		{"::ffff:5.6.7.8", "10.0.0.1"}, // stored as 5.6.7.8
		{"::5.6.7.8", "10.0.0.1"},
		{"2001:db8::1", "10.0.0.1"},
	}
	for i, r := range rows {
		q := fmt.Sprintf("INSERT INTO %s.t (d, c, v) VALUES ('%s', '%s', %d)", ks, r.d, r.c, i)
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := node.Flush(ctx, ks); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "oa", func(c *flightserver.Config) {
		c.DataDir = node.DataDir()
		c.Schemas = tables.NewCatalogSchemas(catalog.New(catalog.Options{Session: s}))
	})

	cqlRows := func(t *testing.T, where string) []int32 {
		t.Helper()
		q := "SELECT v FROM " + ks + ".t WHERE " + where
		iter := s.Query(q).Iter()
		var out []int32
		var v int32
		for iter.Scan(&v) {
			out = append(out, v)
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		slices.Sort(out)
		return out
	}
	flightRows := func(t *testing.T, command string) []int32 {
		t.Helper()
		stream, err := ts.client.DoGet(ctx, &flight.Ticket{Ticket: []byte(command)})
		if err != nil {
			t.Fatal(err)
		}
		rd, err := flight.NewRecordReader(stream)
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		defer rd.Release()
		var out []int32
		for rd.Next() {
			col := rd.RecordBatch().Column(rd.Schema().FieldIndices("v")[0]).(*array.Int32)
			out = append(out, col.Int32Values()...)
		}
		if err := rd.Err(); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		slices.Sort(out)
		return out
	}
	// jsonString quotes s; escaped, its first character is a \u escape,
	// which the fast parser leaves to encoding/json.
	jsonString := func(s string, escaped bool) string {
		if escaped {
			return fmt.Sprintf(`"\u%04x%s"`, s[0], s[1:])
		}
		b, _ := json.Marshal(s)
		return string(b)
	}
	lookups := []struct{ key, from string }{
		{"1.2.3.4", ""},
		{"::ffff:1.2.3.4", "::ffff:10.0.0.2"},
		{"::FFFF:102:304", "10.0.0.2"},
		{"0:0:0:0:0:ffff:1.2.3.4", "::ffff:a00:3"},
		{"[::ffff:1.2.3.4]", "[::ffff:10.0.0.1]"},
		{"1.2.772", "10.2"},        // 1.2.3.4; 10.0.0.2
		{"16909060", "::10.0.0.4"}, // 1.2.3.4; IPv4-compatible bound
		{"::ffff:5.6.7.8", ""},
		{"5.6.7.8", ""},
		{"::5.6.7.8", ""},
		{"0::5.6.7.8", ""},
		{"2001:db8::1", ""},
		{"[2001:0db8:0:0::1]", ""},
		{"::ffff:01.2.3.4", ""}, // Java reads the leading zero as decimal
		{"4294967295", ""},      // 255.255.255.255: no row
	}
	for _, l := range lookups {
		t.Run(l.key+" "+l.from, func(t *testing.T) {
			where := fmt.Sprintf("d = '%s'", l.key)
			if l.from != "" {
				where += fmt.Sprintf(" AND c >= '%s'", l.from)
			}
			want := cqlRows(t, where)
			for _, escaped := range []bool{false, true} {
				command := fmt.Sprintf(`{"version":1,"keyspace":"%s","table":"t","keys":[{"d":%s}]`, ks, jsonString(l.key, escaped))
				if l.from != "" {
					command += fmt.Sprintf(`,"clustering":{"start":{"values":[%s],"inclusive":true}}`, jsonString(l.from, escaped))
				}
				command += "}"
				if got := flightRows(t, command); !slices.Equal(got, want) {
					t.Errorf("%s: rows %v, CQL's WHERE %s returns %v", command, got, where, want)
				}
			}
		})
	}
	// Literals Java does not read (and so CQL rejects) are INVALID_ARGUMENT.
	for _, bad := range []string{"::ffff:1.2.3", "::ffff:1.2.772", "[1.2.3.4]", "[::1", "1::2::3", "::ffff:1.2.3.4%1", "fe80::1%"} {
		if err := s.Query(fmt.Sprintf("SELECT v FROM %s.t WHERE d = '%s'", ks, bad)).Exec(); err == nil {
			t.Errorf("CQL accepts the inet %q", bad)
		}
		command := fmt.Sprintf(`{"version":1,"keyspace":"%s","table":"t","keys":[{"d":%s}]}`, ks, jsonString(bad, false))
		stream, err := ts.client.DoGet(ctx, &flight.Ticket{Ticket: []byte(command)})
		if err == nil {
			_, err = stream.Recv()
		}
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", command, err)
		}
	}
	if !t.Failed() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Logf("drop %s: %v", ks, err)
		}
	}
}
