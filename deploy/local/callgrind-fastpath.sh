#!/usr/bin/env bash
# Counts the instructions of the reconciler's single-SSTable fast path and
# of raw decode over the same SSTable with valgrind's callgrind, and prints
# their ratio (raw / fast: the share of raw decode speed the fast path
# keeps, if instructions cost alike). Counts are exact and repeatable, so
# small changes show where timed benchmarks on a shared machine are noise.
# Needs the bench data (make bench-data) and valgrind (apt-get install
# valgrind). One P and no GC keep the runtime from adding work of its own
# (idle GC workers, spinning threads) that valgrind would count. Profiles
# are kept in build/callgrind for callgrind_annotate.
#   deploy/local/callgrind-fastpath.sh [narrow|wide ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
data=$PWD/build/bench/oa
out=build/callgrind
[ -d "$data/bench" ] || { echo "no $data: run make bench-data first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not found: apt-get install valgrind" >&2; exit 1; }
mkdir -p "$out"
go test -c -o "$out/reconcile.test" ./reconcile
count() { # benchmark name (none: the process alone) -> instructions
	(cd reconcile && SSTF_BENCH_DIR=$data GOMAXPROCS=1 GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
		--callgrind-out-file="../$out/$1.out" "../$out/reconcile.test" -test.run NONE \
		-test.bench "^$1\$" -test.benchtime 1x 2>&1) | awk '/Collected/ {print $4}'
}
# The process start is taken off both arms; opening the SSTable stays in
# both (it is small against a million rows).
base=$(count none)
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(narrow wide)
for shape in "${shapes[@]}"; do
	case $shape in
	narrow) raw=BenchmarkRawSingle fast=BenchmarkMergeSingle ;;
	wide) raw=BenchmarkRawWide fast=BenchmarkMergeWide ;;
	*) echo "unknown shape $shape" >&2; exit 1 ;;
	esac
	r=$(count $raw)
	f=$(count $fast)
	awk -v s="$shape" -v b="$base" -v r="$r" -v f="$f" 'BEGIN {
		printf "%-7s raw %.0f M instructions, fast path %.0f M, raw/fast %.3f (process start %.0f M taken off)\n", s, (r-b)/1e6, (f-b)/1e6, (r-b)/(f-b), b/1e6 }'
done
