package sidecar

import (
	"strings"
	"testing"
)

// TestDecodeListing reads the listing as Sidecar releases write it: the
// table id inside tableName (current) or apart in tableId (older), or
// not at all; entries without a name or size are refused.
func TestDecodeListing(t *testing.T) {
	cases := []struct {
		name, json  string
		table, id   string
		route, fail string
	}{
		{
			name:  "id in tableName",
			json:  `{"snapshotFilesInfo":[{"size":11,"host":"h","port":9043,"dataDirIndex":1,"snapshotName":"s","keySpaceName":"ks","tableName":"t1-0123abcd","fileName":"nb-1-big-Data.db"}]}`,
			table: "t1", id: "0123abcd",
			route: "/api/v1/keyspaces/ks/tables/t1-0123abcd/snapshots/s/components/nb-1-big-Data.db?dataDirectoryIndex=1",
		},
		{
			name:  "id apart",
			json:  `{"snapshotFilesInfo":[{"size":11,"host":"h","port":9043,"dataDirIndex":1,"snapshotName":"s","keySpaceName":"ks","tableName":"t1","tableId":"0123abcd","fileName":"nb-1-big-Data.db"}]}`,
			table: "t1", id: "0123abcd",
			route: "/api/v1/keyspaces/ks/tables/t1-0123abcd/snapshots/s/components/nb-1-big-Data.db?dataDirectoryIndex=1",
		},
		{
			name:  "no id",
			json:  `{"snapshotFilesInfo":[{"size":11,"dataDirIndex":1,"fileName":"nb-1-big-Data.db"}]}`,
			table: "t", id: "",
			route: "/api/v1/keyspaces/ks/tables/t/snapshots/s/components/nb-1-big-Data.db?dataDirectoryIndex=1",
		},
		{name: "no size", json: `{"snapshotFilesInfo":[{"fileName":"x.db"}]}`, fail: "no file name or size"},
		{name: "no name", json: `{"snapshotFilesInfo":[{"size":3}]}`, fail: "no file name or size"},
		{name: "negative size", json: `{"snapshotFilesInfo":[{"size":-3,"fileName":"x.db"}]}`, fail: "no file name or size"},
		{name: "not JSON", json: `<html>`, fail: "decode listing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files, err := decodeListing(strings.NewReader(tc.json), "ks", "t", "s")
			if tc.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fail) {
					t.Fatalf("error %v, want %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := files[0]
			if f.Table != tc.table || f.TableID != tc.id || f.Size != 11 || f.DataDirIndex != 1 || f.Keyspace != "ks" || f.Snapshot != "s" {
				t.Errorf("decoded %+v", f)
			}
			if got := componentRoute(f.Keyspace, f.tableDir(), f.Snapshot, f.FileName, f.DataDirIndex); got != tc.route {
				t.Errorf("route %s, want %s", got, tc.route)
			}
		})
	}
}

// TestRetryWait reads Retry-After in seconds or as a date, within bounds.
func TestRetryWait(t *testing.T) {
	c, err := New("http://x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{"": "1s", "0": "0s", "3": "3s", "600": "10s", "junk": "1s", "-4": "1s"} {
		if got := c.retryWait(h).String(); got != want {
			t.Errorf("Retry-After %q: wait %s, want %s", h, got, want)
		}
	}
}

// TestNewRefusesBadBaseURL: a base URL the first request could not use
// is refused by New, at start-up, naming the URL.
func TestNewRefusesBadBaseURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:9043", true},
		{"https://cassandra-0:9043/", true},
		{"127.0.0.1:9043", false}, // no scheme: "127.0.0.1" parses as one
		{"cassandra-0:9043", false},
		{"ftp://cassandra-0:9043", false},
		{"http://", false},
		{"http://cassandra-0:9043/?x=1", false},
		{"http://[::1", false},
		{"", false},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := New(tc.url, Options{})
			if tc.ok != (err == nil) {
				t.Fatalf("New(%q): %v", tc.url, err)
			}
			if err != nil && !strings.Contains(err.Error(), "sidecar base URL") {
				t.Fatalf("New(%q): %v does not name the base URL", tc.url, err)
			}
		})
	}
}
