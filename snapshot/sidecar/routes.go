package sidecar

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Sidecar's v1 routes (ApiEndpointsV1 in apache/cassandra-sidecar).
// {table} is a table name, or "name-<table id>" on the component route,
// where it spares Sidecar a JMX lookup of the table's directories and
// pins the table Cassandra had when the snapshot was listed.
const apiV1 = "/api/v1"

func snapshotRoute(keyspace, table, snapshot string) string {
	return apiV1 + "/keyspaces/" + url.PathEscape(keyspace) +
		"/tables/" + url.PathEscape(table) +
		"/snapshots/" + url.PathEscape(snapshot)
}

// componentRoute names one file of a snapshot: dataDirectoryIndex picks
// the data directory (of Cassandra's data_file_directories, or of the
// table's directories when no table id is given) the listing found it in.
func componentRoute(keyspace, tableDir, snapshot, component string, dataDir int) string {
	return snapshotRoute(keyspace, tableDir, snapshot) + "/components/" + url.PathEscape(component) +
		"?dataDirectoryIndex=" + strconv.Itoa(dataDir)
}

// checkNames refuses names that are not one path segment before they
// reach a URL: Sidecar joins them into file system paths.
func checkNames(names ...string) error {
	for _, n := range names {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
			return fmt.Errorf("%w: %q", ErrInvalidName, n)
		}
	}
	return nil
}
