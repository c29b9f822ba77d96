package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/dump"
	"github.com/sstable-flight/sstable-flight/token"
)

type keyList []string

func (k *keyList) String() string     { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error { *k = append(*k, v); return nil }

func main() {
	var keys keyList
	flag.Var(&keys, "key", "dump only this partition key (as sstabledump prints it; composite parts joined by ':'); repeatable")
	tokens := flag.String("token-range", "", "dump only tokens in (START, END], as START:END")
	columns := flag.String("columns", "", "dump only these columns, comma-separated")
	noCRC := flag.Bool("skip-crc", false, "do not verify chunk checksums")
	verify := flag.Bool("verify-digest", false, "first check each whole Data.db against Digest.crc32")
	verifyIdx := flag.Bool("verify-indexes", false, "first cross-check Filter.db, Summary.db, Index.db and the tries against Data.db")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: sstable-dump [--key K] [--token-range START:END] [--columns a,b] PATH...")
		os.Exit(2)
	}
	opts := dump.Options{Keys: keys}
	if *columns != "" {
		opts.Columns = strings.Split(*columns, ",")
	}
	if *tokens != "" {
		tr, err := parseRange(*tokens)
		if err != nil {
			fail(err)
		}
		opts.TokenRange = &tr
	}
	for _, p := range flag.Args() {
		files, err := dataFiles(p)
		if err != nil {
			fail(err)
		}
		for _, f := range files {
			r, err := sstable.Open(f, sstable.Options{SkipCRC: *noCRC})
			if err != nil {
				fail(err)
			}
			if *verify {
				if err := r.VerifyDigest(); err != nil {
					r.Close()
					fail(err)
				}
			}
			if *verifyIdx {
				if err := r.VerifyIndexes(); err != nil {
					r.Close()
					fail(err)
				}
			}
			err = dump.Write(os.Stdout, r, opts)
			r.Close()
			if err != nil {
				fail(fmt.Errorf("dump %s: %w", f, err))
			}
		}
	}
}

func parseRange(s string) (token.Range, error) {
	a, b, ok := strings.Cut(s, ":")
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return token.Range{}, fmt.Errorf("parse --token-range %q: want START:END (signed 64-bit tokens)", s)
	}
	return token.Range{Start: token.Token(start), End: token.Token(end)}, nil
}

// dataFiles expands a table directory to its Data.db files.
func dataFiles(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	files, err := filepath.Glob(filepath.Join(p, "*-Data.db"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("open %s: no Data.db in the directory", p)
	}
	sort.Strings(files)
	return files, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sstable-dump:", err)
	os.Exit(1)
}
