#!/usr/bin/env bash
# Runs every native Go fuzzer of the repository for a short time (CI), so a
# parser that panics or hangs on a mutated real file fails the build.
# FUZZTIME overrides the per-fuzzer budget (default 5s).
set -euo pipefail
cd "$(dirname "$0")/../.."
t=${FUZZTIME:-5s}
n=0
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  echo "fuzz $pkg $name ($t)"
  go test -run NONE -fuzz "^${name}\$" -fuzztime "$t" "$pkg" >/tmp/fuzz-$$.log 2>&1 || { cat /tmp/fuzz-$$.log; exit 1; }
  n=$((n + 1))
done < <(grep -rho --include='*_test.go' -H 'func Fuzz[A-Za-z0-9_]*' . | sed 's|^\./||; s|:func |:|' | sort -u)
rm -f /tmp/fuzz-$$.log
[[ $n -gt 0 ]] || { echo "no fuzzers found" >&2; exit 1; }
echo "$n fuzzers ran"
