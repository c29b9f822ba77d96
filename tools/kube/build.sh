#!/usr/bin/env bash
# Builds into $1 (default build/kube/bin), from this module: etcd,
# kube-apiserver, the node's kubelet, kube-controller-manager,
# kube-scheduler and kube-proxy, kube-harness and the pause binary (its
# image is made by kube-harness when a node starts); from the coredns
# module beside it, CoreDNS. A stamp of
# the modules' inputs and the Go version skips the build when nothing
# changed: relinking the Kubernetes binaries takes minutes even from a
# warm cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here/../../build/kube/bin}" && cd "${1:-$here/../../build/kube/bin}" && pwd)
# The Kubernetes binaries report this version (kubectl version,
# /version, the node's kubeletVersion); built from the module they would
# otherwise say v0.0.0-master.
kube_version=$(cd "$here" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
kube=(kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy)
stamp=$( (cd "$here" && go version && echo "$kube_version" && cat go.mod go.sum build.sh coredns/go.mod coredns/go.sum &&
	find cmd internal coredns -name '*.go' | sort | xargs cat) | sha256sum | cut -d' ' -f1)
up_to_date() {
	[[ -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" ]] || return 1
	for b in "${kube[@]}" etcd coredns kube-harness pause; do [[ -e $out/$b ]] || return 1; done
}
if up_to_date; then
	echo "kube-tools: up to date in $out"
	exit 0
fi
cd "$here"
echo "kube-tools: building Kubernetes $kube_version (${kube[*]}), etcd, CoreDNS, kube-harness and pause into $out (minutes on a cold cache)"
for b in "${kube[@]}"; do
	go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$kube_version" -o "$out/$b" "k8s.io/kubernetes/cmd/$b"
done
go build -trimpath -o "$out/etcd" go.etcd.io/etcd/server/v3
(cd coredns && go build -trimpath -o "$out/coredns" .)
go build -trimpath -o "$out/kube-harness" ./cmd/kube-harness
# Static, so its image needs nothing else; stripped, it is ~1.5 MB.
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/pause" ./cmd/pause
echo "$stamp" > "$out/.stamp"
