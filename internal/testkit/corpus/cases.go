package corpus

import (
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// Sorted returns c's tables in name order. Tables is a map: a test that
// ranged over it would run its cases, and draw its seeded random damage,
// in another order on every run.
func (c *ModeCorpus) Sorted() []*CorpusTable {
	out := make([]*CorpusTable, 0, len(c.Tables))
	for _, name := range slices.Sorted(maps.Keys(c.Tables)) {
		out = append(out, c.Tables[name])
	}
	return out
}

// Cases runs the cases of a corpus loop as subtests of one test, named
// "<mode>/<table>" (and below that whatever the test adds), so a failure
// names its table and `go test -run 'TestX/oa/wide'` runs that one alone.
// It counts the cases -run selected: a check after the loop on what the
// whole corpus yields (a floor on the rows read, say) applies only when
// every case ran, and must not fail a run of one table.
type Cases struct {
	t        *testing.T
	ran, all int
}

// NewCases starts counting the corpus cases run under t.
func NewCases(t *testing.T) *Cases { return &Cases{t: t} }

// Run runs fn as the subtest name of the test and reports whether it
// passed (true for a case -run left out, as t.Run does). Cases run one
// after another, so fn may add to counters of the enclosing test.
func (c *Cases) Run(name string, fn func(t *testing.T)) bool {
	c.all++
	return c.t.Run(name, func(t *testing.T) {
		c.ran++
		fn(t)
	})
}

// Ran is the number of cases -run selected.
func (c *Cases) Ran() int { return c.ran }

// All reports whether every case ran, so that a floor on the whole
// corpus applies.
func (c *Cases) All() bool { return c.ran == c.all }

// Modes are the corpus' SSTable formats, oldest first: the names of
// cassandratest.Modes, one directory <root>/<mode> each.
var Modes = cassandratest.ModeNames()

// Tables runs fn as a case for every table of every mode of the corpus
// under root (<root>/<mode>, each as Load reads it), named
// "<mode>/<table>": modes in Modes order, tables in name order. It
// returns the number of tables the corpus has, whichever -run selected,
// for a floor on the corpus' size.
func (c *Cases) Tables(root string, fn func(t *testing.T, mode string, tbl *CorpusTable)) int {
	c.t.Helper()
	n := 0
	for _, mode := range Modes {
		mc, err := Load(filepath.Join(root, mode))
		if err != nil {
			c.t.Fatal(err)
		}
		for _, tbl := range mc.Sorted() {
			c.Run(mode+"/"+tbl.Name, func(t *testing.T) { fn(t, mode, tbl) })
			n++
		}
	}
	return n
}

// SSTableCase names the case of one SSTable from the path of one of its
// components in a corpus directory (<mode>/<keyspace>/<table>-<id>/
// <prefix>-<component>): "<mode>/<table>/<prefix>", e.g. "oa/wide/oa-1-big",
// so that -run 'TestX/oa/wide' selects the table's SSTables.
func SSTableCase(component string) string {
	dir := filepath.Dir(component)
	table := filepath.Base(dir)
	if i := strings.LastIndexByte(table, '-'); i > 0 {
		table = table[:i]
	}
	mode := filepath.Base(filepath.Dir(filepath.Dir(dir)))
	name := filepath.Base(component)
	if m := componentRE.FindStringSubmatch(name); m != nil {
		name = m[1] + "-" + m[2] + "-" + m[3]
	}
	return mode + "/" + table + "/" + name
}

// Rand returns the random source of one case, seeded from seed and the
// case's subtest name: run alone, the case draws the same values as in
// the whole loop, whichever cases ran before it.
func Rand(t *testing.T, seed uint64) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
