#!/usr/bin/env bash
# Builds into $1 (default build/kube/bin), from this module: etcd,
# kube-apiserver, the node's kubelet, kube-controller-manager,
# kube-scheduler and kube-proxy, kube-harness and the pause binary (its
# image is made by kube-harness when a node starts); from the coredns
# module beside it, CoreDNS. Each group has a stamp of its inputs and
# the Go version and is skipped when they did not change: relinking the
# Kubernetes binaries takes minutes even from a warm cache, and a change
# to kube-harness alone must not cost that.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here/../../build/kube/bin}" && cd "${1:-$here/../../build/kube/bin}" && pwd)
cd "$here"
# The Kubernetes binaries report this version (kubectl version,
# /version, the node's kubeletVersion); built from the module they would
# otherwise say v0.0.0-master.
kube_version=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
kube=(kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy)

# stale GROUP BINARIES... -- INPUT FILES...: whether GROUP's stamp
# differs from its inputs' or one of its binaries is missing; the new
# stamp is left in $stamp for done.
stale() {
	group=$1
	shift
	local bins=()
	while [[ $1 != -- ]]; do bins+=("$1"); shift; done
	shift
	stamp=$( (go version && echo "$kube_version" && cat build.sh "$@") | sha256sum | cut -d' ' -f1)
	[[ -f $out/.stamp-$group && $(cat "$out/.stamp-$group") == "$stamp" ]] || return 0
	for b in "${bins[@]}"; do [[ -e $out/$b ]] || return 0; done
	return 1
}
done_group() { echo "$stamp" > "$out/.stamp-$1"; }
sources() { find "$@" -name '*.go' | sort; }

built=()
if stale kubernetes "${kube[@]}" etcd -- go.mod go.sum; then
	echo "kube-tools: building Kubernetes $kube_version (${kube[*]}) and etcd into $out (minutes on a cold cache)"
	for b in "${kube[@]}"; do
		go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$kube_version" -o "$out/$b" "k8s.io/kubernetes/cmd/$b"
	done
	go build -trimpath -o "$out/etcd" go.etcd.io/etcd/server/v3
	done_group kubernetes
	built+=(kubernetes)
fi
if stale coredns coredns -- coredns/go.mod coredns/go.sum $(sources coredns); then
	echo "kube-tools: building CoreDNS into $out"
	(cd coredns && go build -trimpath -o "$out/coredns" .)
	done_group coredns
	built+=(coredns)
fi
if stale harness kube-harness pause -- go.mod go.sum $(sources cmd internal); then
	echo "kube-tools: building kube-harness and pause into $out"
	go build -trimpath -o "$out/kube-harness" ./cmd/kube-harness
	# Static, so its image needs nothing else; stripped, it is ~1.5 MB.
	CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$out/pause" ./cmd/pause
	done_group harness
	built+=(harness)
fi
if [[ ${#built[@]} -eq 0 ]]; then
	echo "kube-tools: up to date in $out"
fi
