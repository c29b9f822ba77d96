package reconcile_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/sstable-flight/sstable-flight/internal/testkit/canon"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
	"github.com/sstable-flight/sstable-flight/internal/testkit/corpus"
	"github.com/sstable-flight/sstable-flight/reconcile"
	"github.com/sstable-flight/sstable-flight/reconcile/reconciletest"
	"github.com/sstable-flight/sstable-flight/sstable"
	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

var (
	randCases  = flag.Int("reconcile.cases", 6, "TestRandomMatchesCQL: number of random cases")
	randSeed   = flag.Uint64("reconcile.seed", 1, "TestRandomMatchesCQL: seed of the first case (case i uses seed+i)")
	randRounds = flag.Int("reconcile.rounds", 3, "TestRandomMatchesCQL: mutation rounds (each followed by a flush and a comparison) per case")
)

const (
	randKeyspace = "reconcile_random"
	// randBatch cases share one nodetool flush per round: a flush starts a
	// JVM, by far the slowest step.
	randBatch = 10
	// Explicit write times come from a tiny set so that a write and a
	// delete, or two writes of different values, often tie.
	randTSBase = 1_600_000_000_000_000
	randTSSpan = 6
	longTTL    = 10 * 365 * 24 * 3600
	shortTTL   = 2
	minRows    = 50
)

// TestRandomMatchesCQL is the reconciler's randomized differential test
// against a real Cassandra node. Each case (one seed) creates a random
// table, then runs rounds of random mutations over a small key space
// (colliding writes, every deletion kind, TTLs, write-time ties), flushes
// after each round and compares the merge of all the table's SSTables
// with SELECT over CQL: rows, order, values, WRITETIME and TTL.
//
// Replay one case with
//
//	go test ./reconcile -run TestRandomMatchesCQL -reconcile.seed=N -reconcile.cases=1
func TestRandomMatchesCQL(t *testing.T) {
	n := cassandratest.Shared(t)
	s := n.FreshKeyspace(t, randKeyspace)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var st randStats
	var log *logReader
	if *randUnflushed > 0 {
		log = newLogReader(t, n, s)
	}
	for first := 0; first < *randCases; first += randBatch {
		var batch []*randCase
		for i := first; i < *randCases && i < first+randBatch; i++ {
			c := newRandCase(*randSeed + uint64(i))
			c.log = log
			batch = append(batch, c)
		}
		runRandBatch(ctx, t, n, s, batch, &st)
	}
	t.Logf("%d cases × %d rounds: compared %d rows, %d values, %d WRITETIME/TTL pairs; %d clustering slices (%d rows)",
		st.cases, *randRounds, st.rows, st.values, st.meta, st.slices, st.sliceRows)
	// The floor scales with the cases asked for, so a one-case replay
	// still runs; a run that compares next to nothing must fail.
	if want := min(minRows, 8*(*randCases)); st.rows < want && !t.Failed() {
		t.Errorf("only %d rows compared, want at least %d", st.rows, want)
	}
	if !t.Failed() {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + randKeyspace).Exec(); err != nil {
			t.Logf("drop %s: %v", randKeyspace, err)
		}
	}
}

type randStats struct{ cases, rows, values, meta, slices, sliceRows int }

// flushedRounds is how many rounds of a case are flushed: all but the
// never-flushed mode's last ones.
func flushedRounds() int { return max(0, *randRounds-*randUnflushed) }

// logWait bounds how long the never-flushed mode waits for the commit
// log to show what CQL acknowledged.
const logWait = 15 * time.Second

// create runs the case's schema statements and finds its table directory.
func (c *randCase) create(t *testing.T, n *cassandratest.Node, s *gocql.Session) {
	t.Helper()
	for _, q := range c.schema {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("seed %d: %s: %v", c.seed, q, err)
		}
	}
	var id gocql.UUID
	if err := s.Query("SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", randKeyspace, c.table).Scan(&id); err != nil {
		t.Fatalf("seed %d: table id of %s: %v", c.seed, c.table, err)
	}
	c.dir = filepath.Join(n.DataDir(), randKeyspace, c.table+"-"+hex.EncodeToString(id[:]))
	c.mode = n.Mode
}

func runRandBatch(ctx context.Context, t *testing.T, n *cassandratest.Node, s *gocql.Session, batch []*randCase, st *randStats) {
	t.Helper()
	var tables []string
	for _, c := range batch {
		c.create(t, n, s)
		tables = append(tables, c.table)
		st.cases++
	}
	if log := batch[0].log; log != nil {
		if err := log.refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for round := 1; round <= *randRounds; round++ {
		var lastShort time.Time
		for _, c := range batch {
			stmts := c.genRound()
			c.rounds = append(c.rounds, stmts)
			for _, q := range stmts {
				if err := s.Query(q).Exec(); err != nil {
					t.Fatalf("seed %d round %d: %s: %v\n%s", c.seed, round, q, err, c.describe())
				}
				if strings.Contains(q, fmt.Sprintf("TTL %d", shortTTL)) {
					lastShort = time.Now()
				}
			}
		}
		if round <= flushedRounds() {
			if err := n.Flush(ctx, randKeyspace, tables...); err != nil {
				t.Fatal(err)
			}
		}
		// Let every short TTL expire (on the server's whole-second clock)
		// before reading, so CQL and the merge agree on its liveness.
		if !lastShort.IsZero() {
			time.Sleep(time.Until(lastShort.Add((shortTTL + 1) * time.Second)))
		}
		for _, c := range batch {
			if !c.failed {
				c.compare(t, s, round, st)
			}
		}
	}
}

// ---- schema and statement generation ----

type typeKind int

const (
	kSimple typeKind = iota // one cell: native types and frozen collections
	kList
	kSet
	kMap
	kUDT
)

type randType struct {
	cql  string
	kind typeKind
	lit  func(r *rand.Rand) string
	// pool returns n distinct literals in ascending CQL order (nil: not a
	// key type).
	pool func(r *rand.Rand, n int) []string
}

type randCol struct {
	name string
	t    *randType
	desc bool
}

func quoteText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

var words = []string{"a", "b", "alpha", "Beta", "héllo", "it's", "zz", "日本", "x y", "0", "~", "ab", "abc"}

func intLit(r *rand.Rand) string { return strconv.Itoa(r.IntN(2001) - 1000) }

func bigintLit(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return strconv.FormatInt(r.Int64N(100)-50, 10)
	}
	return strconv.FormatInt(int64(r.Uint64()), 10)
}

func textLit(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return "''"
	}
	return quoteText(words[r.IntN(len(words))] + strings.Repeat("z", r.IntN(3)))
}

func blobBytes(r *rand.Rand, min int) []byte {
	b := make([]byte, min+r.IntN(6))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

func blobLit(r *rand.Rand) string { return "0x" + hex.EncodeToString(blobBytes(r, 0)) }

func boolLit(r *rand.Rand) string { return strconv.FormatBool(r.IntN(2) == 0) }

func doubleVal(r *rand.Rand) float64 { return float64(r.IntN(4001)-2000) / 8 }

func doubleLit(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return "NaN"
	case 1:
		return "-Infinity"
	case 2:
		return "1e300"
	}
	return strconv.FormatFloat(doubleVal(r), 'g', -1, 64)
}

func timestampLit(r *rand.Rand) string {
	return strconv.FormatInt(1_600_000_000_000+r.Int64N(100_000_000_000), 10)
}

func uuidLit(r *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func decimalLit(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return "123456789012345678901234567890.125"
	case 1:
		return strconv.Itoa(r.IntN(100) - 50)
	}
	return fmt.Sprintf("%d.%0*d", r.IntN(20001)-10000, 1+r.IntN(3), r.IntN(10))
}

func varintLit(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		v := new(big.Int).Lsh(big.NewInt(int64(r.IntN(1000)+1)), uint(64+r.IntN(40)))
		if r.IntN(2) == 0 {
			v.Neg(v)
		}
		return v.String()
	}
	return strconv.FormatInt(r.Int64N(2_000_000)-1_000_000, 10)
}

// numPool draws n distinct integers in [lo, hi) and renders them sorted.
func numPool(r *rand.Rand, n int, lo, hi int64, render func(int64) string) []string {
	seen := map[int64]bool{}
	var vs []int64
	for len(vs) < n {
		v := lo + r.Int64N(hi-lo)
		if !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	out := make([]string, n)
	for i, v := range vs {
		out[i] = render(v)
	}
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func bytesPool(r *rand.Rand, n int, gen func() []byte, render func([]byte) string) []string {
	seen := map[string]bool{}
	var vs [][]byte
	for len(vs) < n {
		v := gen()
		if !seen[string(v)] {
			seen[string(v)] = true
			vs = append(vs, v)
		}
	}
	slices.SortFunc(vs, bytes.Compare)
	out := make([]string, n)
	for i, v := range vs {
		out[i] = render(v)
	}
	return out
}

var (
	tInt = &randType{cql: "int", lit: intLit, pool: func(r *rand.Rand, n int) []string {
		return numPool(r, n, -50, 50, itoa)
	}}
	tBigint = &randType{cql: "bigint", lit: bigintLit, pool: func(r *rand.Rand, n int) []string {
		return numPool(r, n, -1<<40, 1<<40, itoa)
	}}
	tText = &randType{cql: "text", lit: textLit, pool: func(r *rand.Rand, n int) []string {
		return bytesPool(r, n, func() []byte {
			return []byte(words[r.IntN(len(words))] + strings.Repeat("z", r.IntN(2)))
		}, func(b []byte) string { return quoteText(string(b)) })
	}}
	tBlob = &randType{cql: "blob", lit: blobLit, pool: func(r *rand.Rand, n int) []string {
		return bytesPool(r, n, func() []byte { return []byte{byte(r.IntN(256)), byte(r.IntN(256))}[:1+r.IntN(2)] },
			func(b []byte) string { return "0x" + hex.EncodeToString(b) })
	}}
	tBool   = &randType{cql: "boolean", lit: boolLit}
	tDouble = &randType{cql: "double", lit: doubleLit, pool: func(r *rand.Rand, n int) []string {
		return numPool(r, n, -400, 400, func(v int64) string { return strconv.FormatFloat(float64(v)/8, 'g', -1, 64) })
	}}
	tTimestamp = &randType{cql: "timestamp", lit: timestampLit, pool: func(r *rand.Rand, n int) []string {
		return numPool(r, n, 1_600_000_000_000, 1_600_000_100_000, itoa)
	}}
	tUUID = &randType{cql: "uuid", lit: uuidLit, pool: func(r *rand.Rand, n int) []string {
		// NB: UUIDType's order is not byte order; pools of uuids are
		// unsorted, so some generated ranges are empty.
		out := make([]string, n)
		for i := range out {
			out[i] = uuidLit(r)
		}
		return out
	}}
	tDecimal = &randType{cql: "decimal", lit: decimalLit}
	tVarint  = &randType{cql: "varint", lit: varintLit, pool: func(r *rand.Rand, n int) []string {
		return numPool(r, n, -1000, 1000, itoa)
	}}
	tList = &randType{cql: "list<int>", kind: kList, lit: func(r *rand.Rand) string {
		return "[" + listElems(r, r.IntN(4)) + "]"
	}}
	tSet = &randType{cql: "set<text>", kind: kSet, lit: func(r *rand.Rand) string {
		return "{" + setElems(r, r.IntN(4)) + "}"
	}}
	tMap = &randType{cql: "map<text, int>", kind: kMap, lit: func(r *rand.Rand) string {
		return "{" + mapEntries(r, r.IntN(4)) + "}"
	}}
	tFrozenList = &randType{cql: "frozen<list<int>>", lit: func(r *rand.Rand) string {
		return "[" + listElems(r, r.IntN(4)) + "]"
	}}
	keyTypes   = []*randType{tInt, tBigint, tText, tBlob, tDouble, tTimestamp, tUUID, tVarint}
	valueTypes = []*randType{tInt, tBigint, tText, tBlob, tBool, tDouble, tTimestamp, tUUID, tDecimal, tVarint, tList, tSet, tMap, tFrozenList}
)

var setWords = []string{"a", "b", "c", "d", "e"}
var mapKeys = []string{"k1", "k2", "k3", "k4"}

func listElems(r *rand.Rand, n int) string {
	var out []string
	for range n {
		out = append(out, strconv.Itoa(r.IntN(6)))
	}
	return strings.Join(out, ", ")
}

func pickDistinct(r *rand.Rand, from []string, n int) []string {
	p := r.Perm(len(from))
	var out []string
	for _, i := range p[:min(n, len(from))] {
		out = append(out, from[i])
	}
	return out
}

func setElems(r *rand.Rand, n int) string {
	var out []string
	for _, w := range pickDistinct(r, setWords, n) {
		out = append(out, quoteText(w))
	}
	return strings.Join(out, ", ")
}

func mapEntries(r *rand.Rand, n int) string {
	var out []string
	for _, k := range pickDistinct(r, mapKeys, n) {
		out = append(out, quoteText(k)+": "+intLit(r))
	}
	return strings.Join(out, ", ")
}

func mapKeyList(r *rand.Rand, n int) string {
	var out []string
	for _, k := range pickDistinct(r, mapKeys, n) {
		out = append(out, quoteText(k))
	}
	return strings.Join(out, ", ")
}

type randCase struct {
	seed   uint64
	r      *rand.Rand
	table  string
	udt    *randType
	pk     []*randCol
	ck     []*randCol
	static []*randCol
	reg    []*randCol
	pkVals [][]string // partition keys: literals per pk column
	ckPool [][]string // per clustering column: sorted literals
	ckVals [][]string // clustering tuples
	schema []string
	rounds [][]string
	dir    string
	mode   cassandratest.Mode
	failed bool
	// log, in the never-flushed mode, reads the rounds not flushed.
	log *logReader
	// sliceRand draws the slices compared after each round, apart from r
	// so that the mutations of a seed do not depend on them; blobs caches
	// literals serialized by Cassandra.
	// sides caches, per partition and bound, the clustering keys CQL
	// finds on the inner side of it, and partRows each partition's rows.
	sliceRand *rand.Rand
	blobs     map[string][]byte
	sides     map[string]map[string]bool
	partRows  map[int]cqlPartition
}

func newRandCase(seed uint64) *randCase {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &randCase{seed: seed, r: r, table: fmt.Sprintf("t%d", seed)}
	udtName := fmt.Sprintf("u%d", seed)
	c.udt = &randType{cql: udtName, kind: kUDT, lit: func(r *rand.Rand) string {
		var f []string
		if r.IntN(3) != 0 {
			f = append(f, "a: "+intLit(r))
		}
		if len(f) == 0 || r.IntN(3) != 0 {
			f = append(f, "b: "+textLit(r))
		}
		return "{" + strings.Join(f, ", ") + "}"
	}}
	values := append(slices.Clone(valueTypes), c.udt)
	for i := range 1 + r.IntN(2) {
		c.pk = append(c.pk, &randCol{name: fmt.Sprintf("pk%d", i), t: keyTypes[r.IntN(len(keyTypes))]})
	}
	for i := range r.IntN(4) {
		kt := append(slices.Clone(keyTypes), tBool)
		c.ck = append(c.ck, &randCol{name: fmt.Sprintf("ck%d", i), t: kt[r.IntN(len(kt))], desc: r.IntN(2) == 0})
	}
	if len(c.ck) > 0 && r.IntN(2) == 0 {
		for i := range 1 + r.IntN(2) {
			c.static = append(c.static, &randCol{name: fmt.Sprintf("s%d", i), t: values[r.IntN(len(values))]})
		}
	}
	for i := range 2 + r.IntN(5) {
		c.reg = append(c.reg, &randCol{name: fmt.Sprintf("v%d", i), t: values[r.IntN(len(values))]})
	}

	// Key space: 5 partitions × up to 6 clustering tuples.
	var pkPools [][]string
	for _, col := range c.pk {
		n := 5
		if len(c.pk) > 1 {
			n = 3
		}
		pkPools = append(pkPools, col.t.pool(r, n))
	}
	c.pkVals = distinctTuples(r, pkPools, 5)
	for i, col := range c.ck {
		n := 6
		if len(c.ck) > 1 {
			n = 3 - i%2
		}
		if col.t == tBool {
			c.ckPool = append(c.ckPool, []string{"false", "true"})
		} else {
			c.ckPool = append(c.ckPool, col.t.pool(r, n))
		}
	}
	if len(c.ck) > 0 {
		c.ckVals = distinctTuples(r, c.ckPool, 6)
	}

	usesUDT := false
	var defs, pkNames, order []string
	for _, col := range c.pk {
		defs = append(defs, col.name+" "+col.t.cql)
		pkNames = append(pkNames, col.name)
	}
	for _, col := range c.ck {
		defs = append(defs, col.name+" "+col.t.cql)
		dir := "ASC"
		if col.desc {
			dir = "DESC"
		}
		order = append(order, col.name+" "+dir)
	}
	for _, col := range c.static {
		defs = append(defs, col.name+" "+col.t.cql+" STATIC")
		usesUDT = usesUDT || col.t == c.udt
	}
	for _, col := range c.reg {
		defs = append(defs, col.name+" "+col.t.cql)
		usesUDT = usesUDT || col.t == c.udt
	}
	key := "(" + strings.Join(pkNames, ", ") + ")"
	for _, col := range c.ck {
		key += ", " + col.name
	}
	with := "compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}"
	if len(order) > 0 {
		with = "CLUSTERING ORDER BY (" + strings.Join(order, ", ") + ") AND " + with
	}
	if usesUDT {
		c.schema = append(c.schema, fmt.Sprintf("CREATE TYPE %s.%s (a int, b text)", randKeyspace, udtName))
	}
	c.schema = append(c.schema, fmt.Sprintf("CREATE TABLE %s.%s (%s, PRIMARY KEY (%s)) WITH %s",
		randKeyspace, c.table, strings.Join(defs, ", "), key, with))
	return c
}

// distinctTuples picks up to n distinct tuples from the pools' product.
func distinctTuples(r *rand.Rand, pools [][]string, n int) [][]string {
	total := 1
	for _, p := range pools {
		total *= len(p)
	}
	n = min(n, total)
	seen := map[string]bool{}
	var out [][]string
	for len(out) < n {
		var tup []string
		for _, p := range pools {
			tup = append(tup, p[r.IntN(len(p))])
		}
		k := strings.Join(tup, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, tup)
		}
	}
	return out
}

func (c *randCase) qualified() string { return randKeyspace + "." + c.table }

func (c *randCase) pkWhere(p int) string {
	var w []string
	for i, col := range c.pk {
		w = append(w, col.name+" = "+c.pkVals[p][i])
	}
	return strings.Join(w, " AND ")
}

func (c *randCase) rowWhere(p, k int) string {
	w := c.pkWhere(p)
	if len(c.ck) == 0 {
		return w
	}
	for i, col := range c.ck {
		w += " AND " + col.name + " = " + c.ckVals[k][i]
	}
	return w
}

// using renders a USING clause: mostly an explicit write time from the
// tiny set, sometimes a long TTL, rarely a short one the test waits out.
func (c *randCase) using(ttl bool) string {
	r := c.r
	var parts []string
	if ttl {
		switch x := r.IntN(100); {
		case x < 4:
			parts = append(parts, fmt.Sprintf("TTL %d", shortTTL))
		case x < 20:
			parts = append(parts, fmt.Sprintf("TTL %d", longTTL))
		}
	}
	if r.IntN(100) < 85 {
		parts = append(parts, fmt.Sprintf("TIMESTAMP %d", randTSBase+r.IntN(randTSSpan)))
	}
	if len(parts) == 0 {
		return ""
	}
	return " USING " + strings.Join(parts, " AND ")
}

func (c *randCase) value(col *randCol) string {
	if c.r.IntN(12) == 0 {
		return "null"
	}
	return col.t.lit(c.r)
}

// assign renders one SET assignment: a whole-value write, or a collection
// or UDT field operation.
func (c *randCase) assign(col *randCol) string {
	r, n := c.r, col.name
	switch col.t.kind {
	case kList:
		switch r.IntN(5) {
		case 0:
			return n + " = " + n + " + [" + listElems(r, 1+r.IntN(2)) + "]"
		case 1:
			return n + " = [" + listElems(r, 1+r.IntN(2)) + "] + " + n
		case 2:
			return n + " = " + n + " - [" + listElems(r, 1+r.IntN(2)) + "]"
		}
	case kSet:
		switch r.IntN(4) {
		case 0, 1:
			return n + " = " + n + " + {" + setElems(r, 1+r.IntN(2)) + "}"
		case 2:
			return n + " = " + n + " - {" + setElems(r, 1+r.IntN(2)) + "}"
		}
	case kMap:
		switch r.IntN(5) {
		case 0:
			return n + " = " + n + " + {" + mapEntries(r, 1+r.IntN(2)) + "}"
		case 1:
			return n + "[" + quoteText(mapKeys[r.IntN(len(mapKeys))]) + "] = " + intLit(r)
		case 2:
			return n + " = " + n + " - {" + mapKeyList(r, 1+r.IntN(2)) + "}"
		}
	case kUDT:
		switch r.IntN(4) {
		case 0:
			return n + ".a = " + intLit(r)
		case 1:
			return n + ".b = " + textLit(r)
		}
	}
	return n + " = " + c.value(col)
}

func subset[T any](r *rand.Rand, xs []T, atLeastOne bool) []T {
	var out []T
	for _, x := range xs {
		if r.IntN(2) == 0 {
			out = append(out, x)
		}
	}
	if atLeastOne && len(out) == 0 && len(xs) > 0 {
		out = append(out, xs[r.IntN(len(xs))])
	}
	return out
}

func (c *randCase) genRound() []string {
	r := c.r
	var out []string
	for range 12 + r.IntN(14) {
		out = append(out, c.mutation())
	}
	return out
}

func (c *randCase) mutation() string {
	r := c.r
	p := r.IntN(len(c.pkVals))
	k := 0
	if len(c.ckVals) > 0 {
		k = r.IntN(len(c.ckVals))
	}
	x := r.IntN(100)
	if len(c.static) == 0 && x >= 58 && x < 66 || len(c.ck) == 0 && x >= 70 && x < 86 {
		x = r.IntN(58) // no static column or no clustering: write instead
	}
	switch {
	case x < 28: // INSERT
		var names, vals []string
		for i, col := range c.pk {
			names, vals = append(names, col.name), append(vals, c.pkVals[p][i])
		}
		var cols []*randCol
		if len(c.static) > 0 && r.IntN(6) == 0 {
			// A static-only insert names no clustering column.
			cols = subset(r, c.static, true)
		} else {
			for i, col := range c.ck {
				names, vals = append(names, col.name), append(vals, c.ckVals[k][i])
			}
			cols = subset(r, c.reg, false)
			if len(c.static) > 0 && r.IntN(4) == 0 {
				cols = append(cols, subset(r, c.static, true)...)
			}
		}
		for _, col := range cols {
			v := c.value(col)
			if col.t == c.udt && v == "null" {
				v = col.t.lit(r)
			}
			names, vals = append(names, col.name), append(vals, v)
		}
		return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)%s", c.qualified(), strings.Join(names, ", "), strings.Join(vals, ", "), c.using(true))
	case x < 58: // UPDATE of regular cells (collections, UDT fields)
		var sets []string
		for _, col := range subset(r, c.reg, true) {
			sets = append(sets, c.assign(col))
		}
		return fmt.Sprintf("UPDATE %s%s SET %s WHERE %s", c.qualified(), c.using(true), strings.Join(sets, ", "), c.rowWhere(p, k))
	case x < 66 && len(c.static) > 0: // static UPDATE
		var sets []string
		for _, col := range subset(r, c.static, true) {
			sets = append(sets, c.assign(col))
		}
		return fmt.Sprintf("UPDATE %s%s SET %s WHERE %s", c.qualified(), c.using(true), strings.Join(sets, ", "), c.pkWhere(p))
	case x < 70: // partition deletion
		return fmt.Sprintf("DELETE FROM %s%s WHERE %s", c.qualified(), c.using(false), c.pkWhere(p))
	case x < 78 && len(c.ck) > 0: // row deletion
		return fmt.Sprintf("DELETE FROM %s%s WHERE %s", c.qualified(), c.using(false), c.rowWhere(p, k))
	case x < 86 && len(c.ck) > 0: // range deletion
		return fmt.Sprintf("DELETE FROM %s%s WHERE %s", c.qualified(), c.using(false), c.rangeWhere(p))
	case x < 94: // cell deletion
		if len(c.static) > 0 && r.IntN(4) == 0 {
			var names []string
			for _, col := range subset(r, c.static, true) {
				names = append(names, col.name)
			}
			return fmt.Sprintf("DELETE %s FROM %s%s WHERE %s", strings.Join(names, ", "), c.qualified(), c.using(false), c.pkWhere(p))
		}
		var names []string
		for _, col := range subset(r, c.reg, true) {
			names = append(names, col.name)
		}
		return fmt.Sprintf("DELETE %s FROM %s%s WHERE %s", strings.Join(names, ", "), c.qualified(), c.using(false), c.rowWhere(p, k))
	default: // element deletion
		var cands []*randCol
		for _, col := range c.reg {
			if col.t.kind == kMap || col.t.kind == kUDT || col.t.kind == kSet {
				cands = append(cands, col)
			}
		}
		if len(cands) == 0 {
			return fmt.Sprintf("DELETE %s FROM %s%s WHERE %s", c.reg[r.IntN(len(c.reg))].name, c.qualified(), c.using(false), c.rowWhere(p, k))
		}
		col := cands[r.IntN(len(cands))]
		var target string
		switch col.t.kind {
		case kSet:
			return fmt.Sprintf("UPDATE %s%s SET %s = %s - {%s} WHERE %s", c.qualified(), c.using(false), col.name, col.name, setElems(r, 1), c.rowWhere(p, k))
		case kMap:
			target = col.name + "[" + quoteText(mapKeys[r.IntN(len(mapKeys))]) + "]"
		default:
			target = col.name + "." + []string{"a", "b"}[r.IntN(2)]
		}
		return fmt.Sprintf("DELETE %s FROM %s%s WHERE %s", target, c.qualified(), c.using(false), c.rowWhere(p, k))
	}
}

// rangeWhere restricts an equal prefix of the clustering and then, mostly,
// a slice (inclusive, exclusive or open-ended) on the next column; or,
// with several clustering columns, a multi-column slice, which Cassandra
// compares as tuples in each column's natural order and so, on mixed
// ASC/DESC clustering, writes as several range tombstones bounded by
// prefixes of different lengths.
func (c *randCase) rangeWhere(p int) string {
	r := c.r
	w := c.pkWhere(p)
	if len(c.ck) > 1 && r.IntN(3) == 0 {
		return w + c.tupleRange()
	}
	eq := r.IntN(len(c.ck))
	for i := range eq {
		w += " AND " + c.ck[i].name + " = " + c.ckPool[i][r.IntN(len(c.ckPool[i]))]
	}
	if eq > 0 && r.IntN(3) == 0 {
		return w
	}
	col, pool := c.ck[eq], c.ckPool[eq]
	lo, hi := r.IntN(len(pool)), r.IntN(len(pool))
	if lo > hi {
		lo, hi = hi, lo
	}
	switch r.IntN(4) {
	case 0:
		w += " AND " + col.name + []string{" > ", " >= "}[r.IntN(2)] + pool[lo]
	case 1:
		w += " AND " + col.name + []string{" < ", " <= "}[r.IntN(2)] + pool[hi]
	default:
		w += " AND " + col.name + []string{" > ", " >= "}[r.IntN(2)] + pool[lo]
		w += " AND " + col.name + []string{" < ", " <= "}[r.IntN(2)] + pool[hi]
	}
	return w
}

// tupleRange renders a multi-column slice such as
// " AND (ck0, ck1) >= (3, 2) AND (ck0, ck1) < (4, 5)": a lower bound, an
// upper bound or both, each over a prefix of at least two columns.
func (c *randCase) tupleRange() string {
	r := c.r
	tuple := func(op string) string {
		n := 2 + r.IntN(len(c.ck)-1)
		var names, vals []string
		for i := range n {
			names = append(names, c.ck[i].name)
			vals = append(vals, c.ckPool[i][r.IntN(len(c.ckPool[i]))])
		}
		return " AND (" + strings.Join(names, ", ") + ")" + op + "(" + strings.Join(vals, ", ") + ")"
	}
	lower := tuple([]string{" > ", " >= "}[r.IntN(2)])
	upper := tuple([]string{" < ", " <= "}[r.IntN(2)])
	switch r.IntN(4) {
	case 0:
		return lower
	case 1:
		return upper
	}
	return lower + upper
}

func (c *randCase) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay: go test ./reconcile -run TestRandomMatchesCQL -reconcile.seed=%d -reconcile.cases=1 -reconcile.rounds=%d\n", c.seed, *randRounds)
	fmt.Fprintf(&b, "  (SSTable mode %s: for another mode than oa, make fuzz-reconcile RECONCILE_MODE=%[1]s RECONCILE_SEED=%d RECONCILE_CASES=1)\nschema:\n", c.mode, c.seed)
	for _, q := range c.schema {
		fmt.Fprintf(&b, "  %s;\n", q)
	}
	for i, round := range c.rounds {
		fmt.Fprintf(&b, "round %d (then nodetool flush):\n", i+1)
		for _, q := range round {
			fmt.Fprintf(&b, "  %s;\n", q)
		}
	}
	return b.String()
}

// ---- comparison ----

// flatRow is one row in canonical form: the token, each column's canonical
// JSON and, per simple static or regular column, WRITETIME and TTL.
type flatRow struct {
	token int64
	vals  []string
	wt    []*int64
	ttl   []*int64
}

// randRaw captures a result column's wire bytes.
type randRaw struct {
	data []byte
	null bool
}

func (v *randRaw) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	v.null = data == nil
	v.data = append(make([]byte, 0, len(data)), data...)
	return nil
}

func (c *randCase) columns() []*randCol {
	var cols []*randCol
	cols = append(cols, c.pk...)
	cols = append(cols, c.ck...)
	cols = append(cols, c.static...)
	return append(cols, c.reg...)
}

// simple lists the static and regular single-cell columns: those with
// WRITETIME and TTL.
func (c *randCase) simple() []*randCol {
	var out []*randCol
	for _, col := range append(slices.Clone(c.static), c.reg...) {
		if col.t.kind == kSimple {
			out = append(out, col)
		}
	}
	return out
}

func (c *randCase) compare(t *testing.T, s *gocql.Session, round int, st *randStats) {
	t.Helper()
	fail := func(format string, args ...any) {
		c.failed = true
		t.Errorf("seed %d round %d: %s\n%s", c.seed, round, fmt.Sprintf(format, args...), c.describe())
	}
	want, now, err := c.cqlRows(s, "")
	if err != nil {
		fail("CQL read: %v", err)
		return
	}
	// The commit log's last writes reach the segment file a moment after
	// CQL acknowledged them: the never-flushed mode reads until equal,
	// for a while.
	deadline := time.Now().Add(logWait)
	for {
		got, nfiles, err := c.mergedRows(now, func(table *reconcile.Table, readers []*sstable.Reader) (*reconcile.Merger, error) {
			return reconcile.New(table, readers, reconcile.Options{Now: now})
		})
		if err != nil {
			fail("merge: %v", err)
			return
		}
		if flushes := min(round, flushedRounds()); nfiles != flushes {
			// Every round writes to the table, so each flush adds one SSTable
			// unless something compacted them.
			fail("%d SSTables after %d flushes (auto-compaction must be off)", nfiles, flushes)
			return
		}
		var tried randStats
		d := c.diffRows(want, got, now, &tried)
		if d == "" {
			st.rows, st.values, st.meta = st.rows+tried.rows, st.values+tried.values, st.meta+tried.meta
			break
		}
		if c.log == nil || time.Now().After(deadline) {
			fail("%s", d)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.compareSlices(s, st, fail)
}

// diffRows compares our rows with CQL's: "" when they are equal, else the
// first difference and both row lists.
func (c *randCase) diffRows(want, got []flatRow, now int64, st *randStats) string {
	cols, simple := c.columns(), c.simple()
	show := func(rows []flatRow) string {
		var b strings.Builder
		for i, r := range rows {
			fmt.Fprintf(&b, "  %d: %s\n", i, c.formatRow(r, cols, simple))
		}
		return b.String()
	}
	diff := func(format string, args ...any) string {
		return fmt.Sprintf("%s\nCQL rows (now=%d):\n%sour rows:\n%s", fmt.Sprintf(format, args...), now, show(want), show(got))
	}
	for i := 0; i < len(want) && i < len(got); i++ {
		w, g := want[i], got[i]
		if w.token != g.token {
			return diff("row %d: token %d, CQL %d", i, g.token, w.token)
		}
		for j, col := range cols {
			if w.vals[j] != g.vals[j] {
				return diff("row %d column %s: %s, CQL %s", i, col.name, g.vals[j], w.vals[j])
			}
			st.values++
		}
		for j, col := range simple {
			if !sameOpt(w.wt[j], g.wt[j], 0) {
				return diff("row %d WRITETIME(%s): %s, CQL %s", i, col.name, optString(g.wt[j]), optString(w.wt[j]))
			}
			// The clock may tick between CQL's read and now.
			if !sameOpt(w.ttl[j], g.ttl[j], 1) {
				return diff("row %d TTL(%s): %s, CQL %s", i, col.name, optString(g.ttl[j]), optString(w.ttl[j]))
			}
			st.meta++
		}
		st.rows++
	}
	if len(want) != len(got) {
		return diff("%d rows, CQL returned %d", len(got), len(want))
	}
	return ""
}

func sameOpt(a, b *int64, tol int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	d := *a - *b
	return d >= -tol && d <= tol
}

func optString(v *int64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatInt(*v, 10)
}

func (c *randCase) formatRow(r flatRow, cols, simple []*randCol) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("token=%d", r.token))
	for j, col := range cols {
		parts = append(parts, col.name+"="+r.vals[j])
	}
	for j, col := range simple {
		parts = append(parts, fmt.Sprintf("wt(%s)=%s ttl(%s)=%s", col.name, optString(r.wt[j]), col.name, optString(r.ttl[j])))
	}
	return strings.Join(parts, " ")
}

func canonJSON(v any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// cqlRows reads the table (or the rows matching where) over CQL at
// consistency ONE and returns the rows with the unix second just after the
// query returned.
func (c *randCase) cqlRows(s *gocql.Session, where string) ([]flatRow, int64, error) {
	cols, simple := c.columns(), c.simple()
	var pk, sel []string
	for _, col := range c.pk {
		pk = append(pk, col.name)
	}
	sel = append(sel, "token("+strings.Join(pk, ", ")+")")
	for _, col := range cols {
		sel = append(sel, col.name)
	}
	for _, col := range simple {
		sel = append(sel, "WRITETIME("+col.name+")", "TTL("+col.name+")")
	}
	q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(sel, ", "), c.qualified())
	if where != "" {
		q += " WHERE " + where
	}
	iter := s.Query(q).Consistency(gocql.One).PageSize(1000).Iter()
	infos := iter.Columns()
	if len(infos) != len(sel) {
		return nil, 0, fmt.Errorf("%s: %d result columns, want %d", q, len(infos), len(sel))
	}
	raws := make([]randRaw, len(sel))
	dest := make([]any, len(sel))
	for i := range raws {
		dest[i] = &raws[i]
	}
	var rows []flatRow
	for iter.Scan(dest...) {
		var row flatRow
		if err := gocql.Unmarshal(infos[0].TypeInfo, raws[0].data, &row.token); err != nil {
			return nil, 0, fmt.Errorf("token: %w", err)
		}
		for i := range cols {
			raw := raws[1+i]
			var data []byte
			if !raw.null {
				data = raw.data
			}
			v, err := canonJSON(corpus.Canonical(infos[1+i].TypeInfo, data))
			if err != nil {
				return nil, 0, fmt.Errorf("column %s: %w", cols[i].name, err)
			}
			row.vals = append(row.vals, v)
		}
		for j := range simple {
			for k, dst := range []*[]*int64{&row.wt, &row.ttl} {
				i := 1 + len(cols) + 2*j + k
				if raws[i].null {
					*dst = append(*dst, nil)
					continue
				}
				var v int64
				if err := gocql.Unmarshal(infos[i].TypeInfo, raws[i].data, &v); err != nil {
					return nil, 0, fmt.Errorf("%s: %w", infos[i].Name, err)
				}
				*dst = append(*dst, &v)
			}
		}
		rows = append(rows, row)
	}
	if err := iter.Close(); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", q, err)
	}
	return rows, time.Now().Unix(), nil
}

// mergedRows reconciles every SSTable of the table at now through the
// merger open returns; it also returns how many SSTables there were.
func (c *randCase) mergedRows(now int64, open func(*reconcile.Table, []*sstable.Reader) (*reconcile.Merger, error)) ([]flatRow, int, error) {
	files, err := filepath.Glob(filepath.Join(c.dir, "*-Data.db"))
	if err != nil {
		return nil, 0, err
	}
	if len(files) == 0 && c.log == nil {
		if _, err := os.Stat(c.dir); err != nil {
			return nil, 0, fmt.Errorf("table directory: %w", err)
		}
		return nil, 0, nil
	}
	var readers []*sstable.Reader
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	for _, f := range files {
		r, err := sstable.Open(f, sstable.Options{})
		if err != nil {
			return nil, 0, err
		}
		readers = append(readers, r)
	}
	nfiles := len(readers)
	if c.log != nil {
		runs, err := c.log.runs(c.dir, readers)
		if err != nil {
			return nil, 0, fmt.Errorf("the commit log's runs: %w", err)
		}
		readers = append(readers, runs...)
	}
	if len(readers) == 0 {
		return nil, 0, nil
	}
	table, err := reconciletest.TableOf(readers)
	if err != nil {
		return nil, 0, err
	}
	m, err := open(table, readers)
	if err != nil {
		return nil, 0, err
	}
	index := map[string]int{}
	for i, col := range table.Columns {
		index[col.Name] = i
	}
	keyType := readers[0].Schema.Key
	var rows []flatRow
	for m.Next() {
		r := m.Row()
		row := flatRow{token: int64(r.Token())}
		keys, err := marshal.SplitKey(keyType, r.Key)
		if err != nil {
			return nil, 0, err
		}
		keyTypes := marshal.KeyTypes(keyType)
		for i := range c.pk {
			v, err := canonJSON(canon.Value(keyTypes[i], keys[i]))
			if err != nil {
				return nil, 0, fmt.Errorf("partition key %d: %w", i, err)
			}
			row.vals = append(row.vals, v)
		}
		for i := range c.ck {
			var b []byte
			if r.Clustering != nil {
				b = r.Clustering[i]
			}
			v, err := canonJSON(canon.Value(table.Clustering[i], b))
			if err != nil {
				return nil, 0, fmt.Errorf("clustering %d: %w", i, err)
			}
			row.vals = append(row.vals, v)
		}
		value := func(col *randCol) (reconcile.Value, *marshal.Type) {
			i, ok := index[col.name]
			if !ok {
				// No SSTable has written the column.
				return reconcile.Value{Timestamp: reconcile.NoTimestamp}, nil
			}
			return r.Values[i], table.Columns[i].Type
		}
		for _, col := range append(slices.Clone(c.static), c.reg...) {
			v, typ := value(col)
			s := "null"
			if v.Bytes != nil {
				if s, err = canonJSON(canon.Value(typ, v.Bytes)); err != nil {
					return nil, 0, fmt.Errorf("column %s: %w", col.name, err)
				}
			}
			row.vals = append(row.vals, s)
		}
		for _, col := range c.simple() {
			v, _ := value(col)
			var wt, ttl *int64
			if v.Timestamp != reconcile.NoTimestamp {
				ts := v.Timestamp
				wt = &ts
			}
			if v.LocalExpirationTime != 0 {
				left := v.LocalExpirationTime - now
				ttl = &left
			}
			row.wt, row.ttl = append(row.wt, wt), append(row.ttl, ttl)
		}
		rows = append(rows, row)
	}
	if err := m.Err(); err != nil {
		return nil, 0, err
	}
	return rows, nfiles, nil
}
