#!/usr/bin/env bash
# Installs what the tests need when it is missing: a JDK 17 (Cassandra 5.0
# runs on 11 or 17 only), Maven (to resolve Cassandra from Maven
# Central) and Prometheus for the dashboard test (install-prometheus.sh,
# unpacked into build/, no service), and what the single-node Kubernetes
# of kube-harness -node runs on: containerd, runc, the CNI plugins
# (/usr/lib/cni), iptables, conntrack and nftables (docs/testing.md, "A
# real single-node Kubernetes"). Go itself must already be on the machine.
# Idempotent and quiet when everything is present.
set -euo pipefail
need=()
have_jdk17() {
  for j in "${SSTF_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64; do
    [[ -n $j && -x $j/bin/java ]] && "$j/bin/java" -version 2>&1 | grep -q 'version "17' && return 0
  done
  command -v java >/dev/null && java -version 2>&1 | grep -q 'version "17'
}
have_jdk17 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
# The node's runtime and network. Debian's packages start no service here
# (kube-harness runs containerd by hand under its own directory).
command -v containerd >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/loopback ]] || need+=(containernetworking-plugins)
command -v iptables >/dev/null || need+=(iptables)
command -v conntrack >/dev/null || need+=(conntrack)
command -v nft >/dev/null || need+=(nftables)
if [[ ${#need[@]} -gt 0 ]]; then
  echo "install-deps: installing ${need[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "install-deps: Go 1.26 is required on PATH" >&2; exit 1; }
# Prometheus for the dashboard test (deploy/grafana): unpacked into
# build/prometheus, never installed as a service.
bash "$(dirname "$0")/install-prometheus.sh" >/dev/null
