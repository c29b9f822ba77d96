package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/sstable-flight/sstable-flight/snapshot"
)

func main() {
	dataDirs := flag.String("data-dir", "testdata/corpus/nb,testdata/corpus/oa,testdata/corpus/da",
		"Cassandra data directories (<keyspace>/<table>-<id>/), comma-separated")
	flag.Parse()
	for _, d := range strings.Split(*dataDirs, ",") {
		if err := snapshot.Describe(os.Stdout, d); err != nil {
			fmt.Fprintln(os.Stderr, "sstable-flight:", err)
			os.Exit(1)
		}
	}
}
