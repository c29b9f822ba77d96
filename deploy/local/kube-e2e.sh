#!/usr/bin/env bash
# The chart on a real single-node Kubernetes (issue #26): run by `make
# kube-e2e` inside a Cassandra harness run (the host's node, for
# daemonset mode) and a kube-harness node (SSTF_KUBECONFIG,
# SSTF_KUBE_NODE, SSTF_KUBE_NODE_IP, SSTF_KUBE_CONTAINERD). It points the
# tests at Trino 476, the plugin and a Java 25 JDK, and runs the tests of
# helm/charttest built with the kubelet tag. Extra arguments go to go test
# (e.g. -run TestKubeletDaemonSet).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
for v in SSTF_KUBECONFIG SSTF_KUBE_NODE SSTF_KUBE_NODE_IP SSTF_KUBE_CONTAINERD SSTF_CASSANDRA_DIR; do
  [[ -n ${!v:-} ]] || { echo "kube-e2e: $v is not set: run through make kube-e2e" >&2; exit 1; }
done
# Maven colours its output even when quiet: the last line, without them.
last() { tail -1 | sed 's/\x1b\[[0-9;]*m//g'; }
SSTF_TRINO_HOME=$(bash "$root/deploy/local/install-trino.sh" | last)
SSTF_TRINO_PLUGIN_DIR=$(bash "$root/deploy/local/trino-build.sh" | last)
SSTF_JAVA25_HOME=$(source "$root/deploy/local/java25.sh" && echo "$JAVA_HOME")
export SSTF_TRINO_HOME SSTF_TRINO_PLUGIN_DIR SSTF_JAVA25_HOME
cd "$root/helm/charttest"
exec go test -tags kubelet -count=1 -timeout 40m -parallel 3 -run '^TestKubelet' -v "$@" .
