#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kube-harness from this module into $1
# (default build/kube/bin). A stamp of the module's inputs and the Go
# version skips the build when nothing changed: relinking kube-apiserver
# takes a minute even from a warm cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here/../../build/kube/bin}" && cd "${1:-$here/../../build/kube/bin}" && pwd)
# The API server reports this version (kubectl version, /version); built
# from the module it would otherwise say v0.0.0-master.
kube_version=$(cd "$here" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
stamp=$( (cd "$here" && go version && echo "$kube_version" && cat go.mod go.sum build.sh && find cmd -name '*.go' | sort | xargs cat) | sha256sum | cut -d' ' -f1)
if [[ -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" && -x $out/kube-apiserver && -x $out/etcd && -x $out/kube-harness ]]; then
	echo "kube-tools: up to date in $out"
	exit 0
fi
cd "$here"
echo "kube-tools: building kube-apiserver $kube_version, etcd and kube-harness into $out (minutes on a cold cache)"
go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$kube_version" -o "$out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
go build -trimpath -o "$out/etcd" go.etcd.io/etcd/server/v3
go build -trimpath -o "$out/kube-harness" ./cmd/kube-harness
echo "$stamp" > "$out/.stamp"
