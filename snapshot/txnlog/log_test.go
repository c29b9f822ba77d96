package txnlog

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sstable-flight/sstable-flight/sstable/metadata"
)

// txnCassDir is where Cassandra saw the table: not where the tests put it, as
// when this server mounts the volume elsewhere.
const txnCassDir = "/var/lib/cassandra/data/ks/t-0123456789abcdef0123456789abcdef"

// TestTxnRecordChecksumMatchesCassandra pins checksums Cassandra computed:
// org.apache.cassandra.db.lifecycle.LogRecord of cassandra-all 5.0.9 wrote
// the ADD (5.0 form, trailing '-'), COMMIT and ABORT lines and computed the
// others' checksums (LogRecord.make(line).computeChecksum()). Cassandra's own
// tests compute theirs at run time, so they hold no literal to pin.
func TestTxnRecordChecksumMatchesCassandra(t *testing.T) {
	for _, c := range []struct {
		line      string
		typ       RecordType
		path      string
		upd       int64
		numFiles  int
		wantValid bool
	}{
		{"ADD:[" + txnCassDir + "/nb-5-big-,0,8][2746971733]", Add, txnCassDir + "/nb-5-big-", 0, 8, true},
		{"COMMIT:[,0,0][2613697770]", Commit, "", 0, 0, true},
		{"ABORT:[,0,0][737437348]", Abort, "", 0, 0, true},
		// 3.0.8–4.x form: no trailing '-'.
		{"ADD:[" + txnCassDir + "/nb-5-big,0,8][3066746779]", Add, txnCassDir + "/nb-5-big", 0, 8, true},
		// The update time's high and low halves both count.
		{"REMOVE:[" + txnCassDir + "/nb-3-big,1700000000123,8][729053662]", Remove, txnCassDir + "/nb-3-big", 1700000000123, 8, true},
		{"REMOVE:[" + txnCassDir + "/nb-3-big-,1700000000123,8][2108436137]", Remove, txnCassDir + "/nb-3-big-", 1700000000123, 8, true},
		// Lower case parses; the checksum still covers "ADD".
		{"add:[" + txnCassDir + "/da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti,0,9][3498402147]", Add, txnCassDir + "/da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti", 0, 9, true},
		// Only REMOVE keeps an update time, only ADD and REMOVE a path.
		{"ADD:[" + txnCassDir + "/nb-5-big,1700000000123,8][3066746779]", Add, txnCassDir + "/nb-5-big", 0, 8, true},
		{"commit:[1700000000123,0,0][2613697770]", Commit, "", 0, 0, true},
	} {
		r := ParseRecord(c.line)
		if r.Valid() != c.wantValid || r.Type != c.typ || r.Path != c.path || r.UpdateTime != c.upd || r.NumFiles != c.numFiles {
			t.Errorf("%s: got %+v", c.line, r)
		}
		if got := RecordChecksum(r.Type, r.Path, r.UpdateTime, r.NumFiles); int64(got) != r.Checksum {
			t.Errorf("%s: checksum %d, Cassandra wrote %d", c.line, got, r.Checksum)
		}
	}
}

func TestParseTxnRecordRejects(t *testing.T) {
	for _, c := range []struct {
		line string
		typ  RecordType
	}{
		{"ADD:[" + txnCassDir + "/nb-5-big-,0,8][12345678]", Add}, // bad checksum
		{"COMMIT:[,0,0][26136977]", Commit},                       // torn checksum
		{"COMMIT:[,0,0][2613697", Unknown},                        // torn line
		{"COMMIT:[,0,0]", Unknown},                                // no checksum
		{"commit:[a,b,c][12345678]", Unknown},                     // numbers
		{"commit:[1 ,0 ,0 ][12345678]", Unknown},                  // spaces
		{"", Unknown},
		{"DROP:[,0,0][1]", Unknown},
	} {
		r := ParseRecord(c.line)
		if r.Valid() || r.Err == nil || r.Type != c.typ {
			t.Errorf("%q: got %+v, want an invalid %s", c.line, r, c.typ)
		}
	}
}

func TestTxnLogNames(t *testing.T) {
	for _, name := range []string{
		"nb_txn_compaction_1d2c3f00-5b8e-11ee-8c99-0242ac120002.log",
		"oa_txn_flush_1d2c3f00-5b8e-11ee-8c99-0242ac120002.log",
		"da_txn_index_summary_1d2c3f00-5b8e-11ee-8c99-0242ac120002.log",
	} {
		if !IsName(name) {
			t.Errorf("%s: not a txn log name", name)
		}
		if _, err := metadata.ParseDescriptor(name); err == nil {
			t.Errorf("%s: parses as an SSTable component", name)
		}
	}
	for _, name := range []string{"nb-1-big-Data.db", "CommitLog-7-1.log", "nb_txn_.log"} {
		if IsName(name) {
			t.Errorf("%s: taken for a txn log", name)
		}
	}
}

func TestReadTxnLog(t *testing.T) {
	dir := t.TempDir()
	add := txnLine(Add, txnCassDir+"/nb-2-big", 0, 4)
	commit := txnLine(Commit, "", 0, 0)
	for _, c := range []struct {
		name      string
		content   string
		records   int
		completed bool
		corrupt   bool
	}{
		{"committed", add + "\n" + commit + "\n", 2, true, false},
		{"crlf", add + "\r\n" + commit + "\r\n", 2, true, false},
		{"no final newline", add + "\n" + commit, 2, true, false},
		{"in progress", add + "\n", 1, false, false},
		{"empty", "", 0, false, false},
		// A torn last line is tolerated: the log is fine but not completed.
		{"torn commit", add + "\n" + commit[:len(commit)-4] + "\n", 2, false, false},
		{"torn commit checksum", add + "\n" + "COMMIT:[,0,0][26136977]\n", 2, false, false},
		// Anything else invalid makes the log corrupt.
		{"bad middle line", "ADD:[x,0,1][1]\n" + add + "\n" + commit + "\n", 3, true, true},
		{"duplicate", add + "\n" + add + "\n" + commit + "\n", 1, false, true},
		{"commit not last", commit + "\n" + add + "\n", 1, false, true},
	} {
		path := filepath.Join(dir, "nb_txn_compaction_"+strings.ReplaceAll(c.name, " ", "-")+".log")
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Read(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(l.Records) != c.records || l.Completed() != c.completed || (l.Corrupt != nil) != c.corrupt {
			t.Errorf("%s: %d records, completed %v, corrupt %v; want %d, %v, corrupt %v",
				c.name, len(l.Records), l.Completed(), l.Corrupt, c.records, c.completed, c.corrupt)
		}
		if l.Version != "nb" || l.Operation != "compaction" {
			t.Errorf("%s: version %q operation %q", c.name, l.Version, l.Operation)
		}
	}
	// A log deleted since it was listed reads as empty.
	l, err := Read(filepath.Join(dir, "nb_txn_flush_gone.log"))
	if err != nil || len(l.Records) != 0 || l.Completed() {
		t.Fatalf("deleted log: %+v, %v", l, err)
	}
	if _, err := Read(filepath.Join(dir, "notalog.txt")); err == nil {
		t.Fatal("read a file not named as a txn log")
	}
}

// txnTime is the mtime of every test SSTable file and the update time of
// every REMOVE record, so that Cassandra's on-disk check passes.
var txnTime = time.UnixMilli(1700000000123)

var txnComponents = []string{"Data.db", "Index.db", "Statistics.db", "TOC.txt"}

// txnWriteSSTable creates the components of an SSTable, all modified at txnTime.
func txnWriteSSTable(t *testing.T, dir, prefix string) {
	t.Helper()
	for _, c := range txnComponents {
		txnTouch(t, filepath.Join(dir, prefix+"-"+c), txnTime)
	}
}

func txnTouch(t *testing.T, path string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// txnLine formats a record as Cassandra writes it.
func txnLine(typ RecordType, path string, updateTime int64, numFiles int) string {
	return fmt.Sprintf("%s:[%s,%d,%d][%d]", typ, path, updateTime, numFiles, RecordChecksum(typ, path, updateTime, numFiles))
}

func txnAdded(prefix string) string {
	return txnLine(Add, txnCassDir+"/"+prefix, 0, len(txnComponents))
}

func txnRemoved(prefix string) string {
	return txnLine(Remove, txnCassDir+"/"+prefix, txnTime.UnixMilli(), len(txnComponents))
}

var (
	txnCommitted = txnLine(Commit, "", 0, 0)
	txnAborted   = txnLine(Abort, "", 0, 0)
)

const txnCompactionLog = "nb_txn_compaction_1d2c3f00-5b8e-11ee-8c99-0242ac120002.log"

func txnWriteLog(t *testing.T, dir, name string, lines ...string) {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// txnListed lists the SSTables of dir's live entries as prefixes, in
// generation order, each with its count of components.
func txnLive(t *testing.T, dir string) (prefixes []string, components map[string]int) {
	t.Helper()
	entries, err := LiveEntries(dir)
	if err != nil {
		t.Fatal(err)
	}
	components = map[string]int{}
	for _, e := range entries {
		if d, err := metadata.ParseDescriptor(e.Name()); err == nil {
			if components[d.Prefix()] == 0 {
				prefixes = append(prefixes, d.Prefix())
			}
			components[d.Prefix()]++
		}
	}
	slices.SortFunc(prefixes, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	return prefixes, components
}

// txnListed lists dir's live SSTables as prefixes, in generation order.
func txnListed(t *testing.T, dir string) string {
	t.Helper()
	prefixes, _ := txnLive(t, dir)
	return strings.Join(prefixes, ",")
}

func TestListingFollowsTxnLogs(t *testing.T) {
	for _, c := range []struct {
		name     string
		sstables []string
		log      []string
		want     string
	}{
		{"no log", []string{"nb-1-big", "nb-2-big"}, nil, "nb-1-big,nb-2-big"},
		{"flush in progress", []string{"nb-1-big", "nb-2-big"},
			[]string{txnAdded("nb-2-big")}, "nb-1-big"},
		{"flush committed", []string{"nb-1-big", "nb-2-big"},
			[]string{txnAdded("nb-2-big"), txnCommitted}, "nb-1-big,nb-2-big"},
		{"compaction committed, old files not deleted yet", []string{"nb-1-big", "nb-2-big", "nb-3-big"},
			[]string{txnAdded("nb-3-big"), txnRemoved("nb-1-big"), txnRemoved("nb-2-big"), txnCommitted}, "nb-3-big"},
		{"compaction aborted", []string{"nb-1-big", "nb-2-big", "nb-3-big"},
			[]string{txnAdded("nb-3-big"), txnRemoved("nb-1-big"), txnRemoved("nb-2-big"), txnAborted}, "nb-1-big,nb-2-big"},
		{"compaction in progress", []string{"nb-1-big", "nb-2-big", "nb-3-big"},
			[]string{txnAdded("nb-3-big"), txnRemoved("nb-1-big"), txnRemoved("nb-2-big")}, "nb-1-big,nb-2-big"},
		{"ULID names, compaction in progress", []string{"da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti", "da-3gbu_0q1t_0c2rk2l3ewfb5kbs3u-bti"},
			[]string{txnAdded("da-3gbu_0q1t_0c2rk2l3ewfb5kbs3u-bti"), txnRemoved("da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti")},
			"da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti"},
		{"ULID names, compaction committed", []string{"da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti", "da-3gbu_0q1t_0c2rk2l3ewfb5kbs3u-bti"},
			[]string{txnAdded("da-3gbu_0q1t_0c2rk2l3ewfb5kbs3u-bti"), txnRemoved("da-3gbu_0q1s_1v9ht2l3ewfb5kbs3u-bti"), txnCommitted},
			"da-3gbu_0q1t_0c2rk2l3ewfb5kbs3u-bti"},
		// nb-1-big's files start "nb-1-big-": nb-11-big's are not its.
		{"generation prefix", []string{"nb-1-big", "nb-11-big"},
			[]string{txnAdded("nb-1-big")}, "nb-11-big"},
		{"generation prefix, 5.0 form", []string{"nb-1-big", "nb-11-big"},
			[]string{txnLine(Add, txnCassDir+"/nb-1-big-", 0, 4)}, "nb-11-big"},
		// LogTransactionTest.testCorruptRecord: a corrupt commit leaves the
		// transaction in progress.
		{"commit with a bad checksum", []string{"nb-1-big", "nb-2-big"},
			[]string{txnAdded("nb-2-big"), txnRemoved("nb-1-big"), "COMMIT:[,0,0][12345678]"}, "nb-1-big"},
		{"bad second-from-last line", []string{"nb-1-big", "nb-2-big"},
			[]string{txnAdded("nb-2-big"), txnRemoved("nb-1-big"), "add:[ma-3-big,0,4][12345678]", "COMMIT:[,0,0][12345678]"}, "nb-1-big"},
		{"unparsable first line, then committed", []string{"nb-1-big", "nb-2-big"},
			[]string{"add:[a,b,c][12345678]", txnAdded("nb-2-big"), txnRemoved("nb-1-big"), txnCommitted}, "nb-2-big"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range c.sstables {
				txnWriteSSTable(t, dir, p)
			}
			if c.log != nil {
				txnWriteLog(t, dir, txnCompactionLog, c.log...)
			}
			if got := txnListed(t, dir); got != c.want {
				t.Errorf("listed %s, want %s", got, c.want)
			}
		})
	}
}

// TestListingMatchesRecordsInThisDirectory: records naming the directory as
// this server sees it work as well as Cassandra's own paths.
func TestListingMatchesRecordsInThisDirectory(t *testing.T) {
	dir := t.TempDir()
	txnWriteSSTable(t, dir, "oa-1-big")
	txnWriteSSTable(t, dir, "oa-2-big")
	txnWriteLog(t, dir, "oa_txn_flush_1d2c3f00-5b8e-11ee-8c99-0242ac120002.log",
		txnLine(Add, filepath.Join(dir, "oa-2-big"), 0, 4))
	if got := txnListed(t, dir); got != "oa-1-big" {
		t.Fatalf("listed %s, want oa-1-big", got)
	}
}

// TestListingRaceWithFinishedCompaction: once some old files are gone an
// unfinished log cannot be trusted; the caller is told to list again.
func TestListingRaceWithFinishedCompaction(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"nb-1-big", "nb-2-big", "nb-3-big"} {
		txnWriteSSTable(t, dir, p)
	}
	txnWriteLog(t, dir, txnCompactionLog, txnAdded("nb-3-big"), txnRemoved("nb-1-big"), txnRemoved("nb-2-big"))
	if err := os.Remove(filepath.Join(dir, "nb-1-big-Data.db")); err != nil {
		t.Fatal(err)
	}
	_, err := LiveEntries(dir)
	if !errors.Is(err, ErrInProgress) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), txnCompactionLog) {
		t.Fatalf("got %v, want ErrInProgress naming %s and %s", err, dir, txnCompactionLog)
	}
	// Once committed, the missing files are expected.
	txnWriteLog(t, dir, txnCompactionLog, txnAdded("nb-3-big"), txnRemoved("nb-1-big"), txnRemoved("nb-2-big"), txnCommitted)
	if got := txnListed(t, dir); got != "nb-3-big" {
		t.Fatalf("listed %s, want nb-3-big", got)
	}
}

// TestListingTornCommitWithMissingFile is testWrongChecksumLastLineMissingFile:
// the REMOVE record no longer matches the disk, so it does not count, and the
// transaction reads as in progress rather than failing the listing.
func TestListingTornCommitWithMissingFile(t *testing.T) {
	dir := t.TempDir()
	txnWriteSSTable(t, dir, "nb-1-big")
	txnWriteSSTable(t, dir, "nb-2-big")
	txnWriteLog(t, dir, txnCompactionLog, txnAdded("nb-2-big"), txnRemoved("nb-1-big"), "COMMIT:[,0,0][12345678]")
	if err := os.Remove(filepath.Join(dir, "nb-1-big-Data.db")); err != nil {
		t.Fatal(err)
	}
	prefixes, components := txnLive(t, dir)
	if len(prefixes) != 1 || prefixes[0] != "nb-1-big" || components["nb-1-big"] != len(txnComponents)-1 {
		t.Fatalf("listed %v %v, want nb-1-big without its Data.db", prefixes, components)
	}
}

// TestListingChecksObsoletedFiles: a REMOVE record whose files changed since
// it was logged (restored from a backup, say) obsoletes nothing, as in
// testObsoletedDataFileUpdateTimeChanged; update times logged to the second
// (Java 8) or counting Statistics.db (before 5.0) still match.
func TestListingChecksObsoletedFiles(t *testing.T) {
	ms := txnTime.UnixMilli()
	for _, c := range []struct {
		name    string
		touch   string // component of nb-1-big to touch again
		mtime   time.Time
		logTime int64 // REMOVE record's update time
		want    string
	}{
		{"unchanged", "", time.Time{}, ms, "nb-2-big"},
		{"Data.db changed", "Data.db", txnTime.Add(time.Minute), ms, "nb-1-big,nb-2-big"},
		{"logged in whole seconds", "", time.Time{}, ms - ms%1000, "nb-2-big"},
		{"Statistics.db rewritten", "Statistics.db", txnTime.Add(time.Minute), ms, "nb-2-big"},
		{"legacy time counting Statistics.db", "Statistics.db", txnTime.Add(time.Minute), txnTime.Add(time.Minute).UnixMilli(), "nb-2-big"},
		{"wrong time", "", time.Time{}, ms + 5000, "nb-1-big,nb-2-big"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			txnWriteSSTable(t, dir, "nb-1-big")
			txnWriteSSTable(t, dir, "nb-2-big")
			if c.touch != "" {
				txnTouch(t, filepath.Join(dir, "nb-1-big-"+c.touch), c.mtime)
			}
			txnWriteLog(t, dir, txnCompactionLog, txnAdded("nb-2-big"),
				txnLine(Remove, txnCassDir+"/nb-1-big", c.logTime, 4), txnCommitted)
			if got := txnListed(t, dir); got != c.want {
				t.Errorf("listed %s, want %s", got, c.want)
			}
		})
	}
}

// TestTxnTemporaryFilesUsesTheGivenListing: only the files listed before
// the logs are read are classified.
func TestTxnTemporaryFilesUsesTheGivenListing(t *testing.T) {
	dir := t.TempDir()
	txnWriteSSTable(t, dir, "nb-1-big")
	txnWriteLog(t, dir, txnCompactionLog, txnAdded("nb-2-big"), txnRemoved("nb-1-big"), txnCommitted)
	var names []string
	for _, c := range txnComponents {
		names = append(names, "nb-1-big-"+c)
	}
	temp, err := TemporaryFiles(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	if len(temp) != len(txnComponents) {
		t.Fatalf("temporary %v, want all of nb-1-big", temp)
	}
	if temp, err = TemporaryFiles(dir, names[:1]); err != nil || len(temp) != 1 {
		t.Fatalf("temporary %v, %v; want only %s", temp, err, names[0])
	}
}

// TestListingJBODTransactions: a compaction across data directories writes
// the same log into each; only the records of SSTables in the listed
// directory apply there, whether the log names it as we see it or not.
func TestListingJBODTransactions(t *testing.T) {
	const otherDir = "/var/lib/cassandra/data2/ks/t-0123456789abcdef0123456789abcdef"
	other := func(typ RecordType, prefix string) string {
		return txnLine(typ, otherDir+"/"+prefix, map[RecordType]int64{Remove: txnTime.UnixMilli()}[typ], 4)
	}
	for _, c := range []struct {
		name     string
		sstables []string
		log      func(dir string) []string
		want     string
	}{
		{"in progress seen elsewhere", []string{"nb-1-big", "nb-3-big"}, func(string) []string {
			return []string{txnAdded("nb-3-big"), txnRemoved("nb-1-big"), other(Remove, "nb-2-big")}
		}, "nb-1-big"},
		{"in progress seen where Cassandra sees it", []string{"nb-1-big", "nb-3-big"}, func(dir string) []string {
			return []string{txnLine(Add, dir+"/nb-3-big", 0, 4), txnLine(Remove, dir+"/nb-1-big", txnTime.UnixMilli(), 4), other(Remove, "nb-2-big")}
		}, "nb-1-big"},
		{"committed with only our old SSTable here", []string{"nb-2-big", "nb-5-big"}, func(string) []string {
			return []string{other(Add, "nb-3-big"), other(Remove, "nb-1-big"), txnRemoved("nb-2-big"), txnCommitted}
		}, "nb-5-big"},
		{"aborted with only our new SSTable here", []string{"nb-3-big", "nb-5-big"}, func(string) []string {
			return []string{txnAdded("nb-3-big"), other(Remove, "nb-1-big"), other(Remove, "nb-2-big"), txnAborted}
		}, "nb-5-big"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range c.sstables {
				txnWriteSSTable(t, dir, p)
			}
			txnWriteLog(t, dir, txnCompactionLog, c.log(dir)...)
			if got := txnListed(t, dir); got != c.want {
				t.Errorf("listed %s, want %s", got, c.want)
			}
		})
	}
}

// TestTxnLogReadIsCapped is issue #15's finding 6 for txn logs: a log
// grown huge (sparse, 64 GiB) or that is not a regular file (a FIFO,
// whose open waited for a writer for ever) fails the read at once,
// without reading it. Before, os.ReadFile allocated its size: "fatal
// error: runtime: out of memory".
func TestTxnLogReadIsCapped(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "oa_txn_compaction_9a1f0e40-5b8e-11ef-8c99-0242ac120002.log")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(log, 64<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(log); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Fatalf("64 GiB txn log: %v", err)
	}
}
