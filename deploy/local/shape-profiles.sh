#!/usr/bin/env bash
# Profiles the server under each flight-loadgen shape and prints each
# shape's top functions by own CPU time: where a shape's time goes now.
# Needs the bench data (make bench-data): build/bench/oa.
#   deploy/local/shape-profiles.sh [seconds per shape, default 8]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-8}
data=build/bench/oa
out=build/shape-profiles
[ -d "$data/bench" ] || { echo "no $data: run make bench-data first" >&2; exit 1; }
mkdir -p "$out"
go build -o "$out/sstable-flight" ./cmd/sstable-flight
go build -o "$out/flight-loadgen" ./cmd/flight-loadgen
"$out/sstable-flight" --data-dir "$data" --snapshot-mode live --listen 127.0.0.1:18815 \
	--admin-listen 127.0.0.1:19102 --pprof --log-level warn 2>"$out/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf 127.0.0.1:19102/metrics >/dev/null && break; sleep 0.1; done
run() { # name table extra-flags...
	local name=$1 table=$2; shift 2
	"$out/flight-loadgen" --addr 127.0.0.1:18815 --metrics http://127.0.0.1:19102/metrics --table "bench.$table" \
		--ramp 8 --step "$((secs + 4))s" --warmup 1s --quiet --keys 2000 --out-jsonl "$out/$name.jsonl" "$@" >"$out/$name.txt" &
	local lg=$!
	sleep 2
	curl -sf "127.0.0.1:19102/debug/pprof/profile?seconds=$secs" >"$out/$name.pb.gz"
	wait $lg
	printf '\n== %s (bench.%s, concurrency 8): %s\n' "$name" "$table" "$(tail -1 "$out/$name.txt" | awk '{print $3" ops/s, "$4" rows/s, p50 "$6" ms, p99 "$8" ms"}')"
	go tool pprof -top -nodecount 6 "$out/sstable-flight" "$out/$name.pb.gz" 2>/dev/null | sed -n '/flat%/,$p'
}
run point narrow --shape point --direct
run in narrow --shape in --k 10 --direct
run slice wide --shape slice --direct
run limit narrow --shape limit --k 1000 --direct
run range narrow --shape range --range-fraction 64
run scan narrow --shape scan --scan-splits 4 --ramp 1
run mix narrow --shape mix --mix point:80,in:15,scan:5 --direct
