#!/usr/bin/env bash
# The Trino connector's tests: unit tests (Surefire) and the integration
# suite (Failsafe, *IT), which starts one Trino 476 and one sstable-flight
# per corpus format (nb, oa, da) for the whole Maven run and stops them at
# its end, and SstableFlightConnectorTest (Failsafe too: Trino's standard
# connector checks on Trino in the test JVM, over TPC-H tables the node
# writes, with a server of its own). Needs build/sstable-flight (make trino-test builds it first) and
# a running Cassandra node (oa) for the differential against Trino's
# cassandra connector and a three-node cluster for ClusterIT: make
# trino-test runs this script under `cassandra-harness run -mode oa
# -cluster 3 --`, which exports SSTF_CASSANDRA_* (make test runs it after
# the Go tests in the same harness run); by hand, eval "$(cassandra-harness
# env -dir DIR)" first. Without a node or the cluster it fails here, before
# building anything.
# Whatever the suite started and could not stop (this script's Maven was
# killed, say) is ended here by the pids it wrote, never by name.
#
#   deploy/local/trino-test.sh [extra maven flags, e.g. -Dit.test=CorpusIT]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
binary="$root/build/sstable-flight"
work="$root/build/trino-it"
[[ -x $binary ]] || { echo "trino-test: $binary is missing: go build -o build/sstable-flight ./cmd/sstable-flight (make trino-test does)" >&2; exit 1; }
if [[ -z ${SSTF_CASSANDRA_CQL_PORT:-} || -z ${SSTF_CASSANDRA_JMX_PORT:-} || -z ${SSTF_CASSANDRA_DIR:-} ]]; then
  echo "trino-test: no Cassandra node (SSTF_CASSANDRA_CQL_PORT, _JMX_PORT, _DIR unset): the differential against Trino's cassandra connector needs one." >&2
  echo "trino-test: run make trino-test (it wraps this script in cassandra-harness run -mode oa), or eval \"\$(cassandra-harness env -dir DIR)\" for a running node" >&2
  exit 1
fi
if [[ -z ${SSTF_CASSANDRA_CLUSTER_DIR:-} ]]; then
  echo "trino-test: no Cassandra cluster (SSTF_CASSANDRA_CLUSTER_DIR unset): ClusterIT reads a three-node cluster." >&2
  echo "trino-test: run make trino-test (cassandra-harness run -mode oa -cluster 3), or eval \"\$(cassandra-harness env -dir DIR)\" of a running node and cluster" >&2
  exit 1
fi
trino_home=$(bash "$root/deploy/local/install-trino.sh")

reap() {
  local f pid
  for f in "$work"/pids/*.pid; do
    [[ -f $f ]] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      echo "trino-test: ending leftover $(basename "$f" .pid) (pid $pid)" >&2
      kill "$pid" 2>/dev/null || true
      sleep 2
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
}
trap reap EXIT

TRINO_MVN_QUIET=0 bash "$root/deploy/local/trino-build.sh" verify \
  -Dsstf.server.binary="$binary" \
  -Dsstf.trino.home="$trino_home" \
  -Dsstf.corpus.dir="$root/testdata/corpus" \
  -Dsstf.work.dir="$work" \
  "$@"
