#!/usr/bin/env bash
# A local Apache Cassandra 5.0 node for people: the same harness the tests use.
#
#   deploy/local/cassandra.sh start [nb|oa|da]   start a node in build/cassandra-<mode>
#   deploy/local/cassandra.sh stop  [nb|oa|da]
#   deploy/local/cassandra.sh env   [nb|oa|da]   print SSTF_CASSANDRA_* exports (CQL port, ...)
#   deploy/local/cassandra.sh nodetool [nb|oa|da] ARGS...    e.g. flush ks
#   deploy/local/cassandra.sh sstabledump [nb|oa|da] DATA.db
#
# Cassandra binds 127.0.0.1 only; the CQL port is chosen free and printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
verb=${1:?usage: $0 start|stop|env|nodetool|sstabledump [nb|oa|da] [args]}
shift
mode=oa
if [[ $# -gt 0 && $1 =~ ^(nb|oa|da)$ ]]; then mode=$1; shift; fi
dir=build/cassandra-$mode
bash deploy/local/install-deps.sh
case $verb in
  start)
    if [[ -f $dir/node.json ]]; then
      echo "a node may already run in $dir; stop it first" >&2
      exit 1
    fi
    mkdir -p "$dir"
    exec go run ./cmd/cassandra-harness start -mode "$mode" -dir "$dir" ;;
  stop)
    go run ./cmd/cassandra-harness stop -dir "$dir"
    rm -rf "$dir" ;;
  env|nodetool|sstabledump)
    exec go run ./cmd/cassandra-harness "$verb" -dir "$dir" "$@" ;;
  *)
    echo "unknown command $verb" >&2
    exit 2 ;;
esac
