# sstable-flight. The two commands a newcomer needs:
#   make run    the server's main job on the committed corpus (no Cassandra needed)
#   make test   vet, unit tests and the real-Cassandra tests, installing what they need
GO      ?= go
BUILD   := build
FULL    := $(BUILD)/corpus-full
HARNESS := $(GO) run ./cmd/cassandra-harness

BENCH   := $(BUILD)/bench

.PHONY: run test deps pyenv vet unit corpus commitlog-fixtures corpus-full check-corpus-full fuzz-short fuzz-reconcile bench bench-data clean bench-flight trino-plugin trino-test image image-test chart-test kube-tools kube-test kube-e2e suite bench-trino idle-rss

# The binary has no default data directory: --data-dir names the corpus.
# The pyarrow venv first, so that the one-liners the server prints run
# with build/venv/bin/python3 on a fresh machine.
run: pyenv
	$(GO) run ./cmd/sstable-flight --data-dir testdata/corpus/oa --snapshot-dir build/snapshots --pprof

deps:
	@bash deploy/local/install-deps.sh

# The Python venv (build/venv, pinned pyarrow from PyPI) of the pyarrow
# Flight client check in flightserver; the test also builds it if missing.
pyenv:
	@bash deploy/local/pyenv.sh >/dev/null

vet:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
		if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi

# All Go tests of every package against one shared Cassandra node and
# one shared three-node cluster (127.0.0.1-3, for the ring and cluster
# tests), built with the invariants tag (docs/testing.md): released
# buffers are poisoned and double releases panic. One tagged pass, not a
# second one: the tag costs sstable's tests about a quarter more CPU, a
# second pass would double the step.
UNIT_TESTS := $(GO) test -count=1 -tags invariants ./...
unit: deps pyenv
	$(HARNESS) run -mode oa -cluster 3 -- $(UNIT_TESTS)

# Regenerate the full-size corpus in every harness mode (nb, oa and da; one
# node per mode, in turn) and check the coverage list against it.
corpus-full: deps
	$(GO) run ./cmd/corpusgen -out $(FULL) -scale full

# The coverage list, the reader's differential test against sstabledump,
# its access-path property tests and the reconciler's differential test
# against CQL, on the regenerated full corpus. Untagged, so the stream's
# production refill (the partition key's buffer swap, which invariants
# builds replace) runs in CI too, TestPartitionKeyHolds pinning it.
check-corpus-full: corpus-full
	SSTF_CORPUS=$(abspath $(FULL)) $(GO) test -count=1 ./internal/testkit/corpus ./sstable ./sstable/dump ./reconcile \
		-run 'TestCoverage$$|TestMatchesSSTableDump|TestPointAndRangeMatchFullScan|TestScanMatchesDumpStructure|TestStatisticsMatchSchema|TestPartitionKeyHolds$$|TestMatchesCQL$$'

# Every native fuzzer for a few seconds: mutated real files must never
# panic or hang a parser.
fuzz-short:
	bash deploy/ci/fuzz-short.sh

# The Trino connector (trino/, docs/trino.md): the plugin directory and zip
# under trino/target/, built with Maven on Java 25 by deploy/local/trino-build.sh.
trino-plugin:
	@bash deploy/local/trino-build.sh

# The connector's unit tests and its integration suite: one real Trino 476
# (installed once into build/trino/ from Maven Central) and one server per
# corpus format, queried through Trino's JDBC driver, the differential
# against Trino's cassandra connector on one Cassandra node (oa) holding the
# corpus, and ClusterIT on a three-node cluster, a server beside each node;
# the node and the cluster are started around the suite by the harness
# (docs/testing.md).
trino-test: deps
	$(GO) build -o $(BUILD)/sstable-flight ./cmd/sstable-flight
	$(HARNESS) run -mode oa -cluster 3 -- bash deploy/local/trino-test.sh

# make test's Go tests, the chart's tests and the Trino suite inside one
# real API server (kube-harness) and one harness run: one node and one
# three-node cluster for all of them, not a second Cassandra start (about
# a minute per node on two cores). The Trino suite runs after the Go and
# chart tests have passed.
suite: deps pyenv kube-tools
	$(GO) build -o $(BUILD)/sstable-flight ./cmd/sstable-flight
	$(KUBE_BIN)/kube-harness run -- $(HARNESS) run -mode oa -cluster 3 -- bash -c \
		'$(UNIT_TESTS) && (cd helm/charttest && $(GO) test -count=1 ./...) && bash deploy/local/trino-test.sh'

test: deps vet suite check-corpus-full fuzz-short image-test kube-e2e

# The reconciler's randomized differential test against real Cassandra
# with many cases: random schemas and mutations, flushed and merged, must
# give exactly the rows, WRITETIME and TTL of CQL. A failure prints the
# seed and statements to replay it. RECONCILE_SEED (default: the clock)
# picks the first case; RECONCILE_MODE the SSTable format, one of the
# harness's modes (go run ./cmd/cassandra-harness modes).
RECONCILE_CASES ?= 100
RECONCILE_SEED  ?= $(shell date +%s)
RECONCILE_MODE  ?= oa
# RECONCILE_UNFLUSHED=N leaves each case's last N rounds (of 3) unflushed:
# the merge reads them from the commit log (issue #28).
RECONCILE_UNFLUSHED ?= 0
fuzz-reconcile: deps
	$(HARNESS) run -mode $(RECONCILE_MODE) -- $(GO) test -count=1 -timeout 60m -v -run 'TestRandomMatchesCQL$$' ./reconcile \
		-reconcile.cases=$(RECONCILE_CASES) -reconcile.seed=$(RECONCILE_SEED) -reconcile.unflushed=$(RECONCILE_UNFLUSHED)

# Rewrite the committed small corpus (testdata/corpus) from real Cassandra.
corpus: deps
	$(GO) run ./cmd/corpusgen -out testdata/corpus -scale small

# Rewrite the commit log fixtures (commitlog/testdata) from real Cassandra:
# one node per commit log version and compressor (~3 min).
commitlog-fixtures: deps
	$(GO) run ./cmd/commitloggen -out commitlog/testdata

# The storage modes the benchmarks run on: 5.0's own BIG and BTI formats.
# Each is one of the harness's modes, whose one list is
# internal/testkit/cassandratest/mode.go (go run ./cmd/cassandra-harness modes
# prints it); TestModeListsAgree fails when one is not.
BENCH_MODES := oa da
empty :=
space := $(empty) $(empty)
comma := ,

# Benchmark data: 1M narrow rows (text key, ~100-byte value, LZ4) and 1M
# wide rows (1,000 per partition), written by Cassandra in each of
# BENCH_MODES and compacted to one SSTable each, with Cassandra's own CQL
# scan and point-read figures on the same data (cql-baseline.json).
bench-data: deps
	@missing=; for m in $(BENCH_MODES); do test -f $(BENCH)/$$m/cql-baseline.json || missing=$$m; done; \
		test -z "$$missing" || $(GO) run ./cmd/corpusgen -bench-rows 1000000 -out $(BENCH) -modes $(subst $(space),$(comma),$(BENCH_MODES))

bench: bench-data
	@for m in $(BENCH_MODES); do \
		echo "== $$m"; cat $(BENCH)/$$m/cql-baseline.json; echo; \
		SSTF_BENCH_DIR=$(abspath $(BENCH))/$$m $(GO) test -run NONE -bench . -benchmem ./sstable/ || exit 1; \
	done

# Issue #25's idle footprint: the server started IDLE_RSS_RUNS times over
# the committed oa corpus, its VmRSS 3 s after each start (median, max,
# anonymous and file-backed parts) and the binary's size, from
# BenchmarkIdleRSS. It reports and does not judge (docs/PERFORMANCE.md has
# the target); a test in every run guards what the figure regressed for.
IDLE_RSS_RUNS ?= 5
idle-rss:
	$(GO) test -count=1 -run '^$$' -bench '^BenchmarkIdleRSS$$' -benchtime $(IDLE_RSS_RUNS)x ./cmd/sstable-flight

# sstable-flight's own performance goals (docs/PERFORMANCE.md; named
# bench-lane-a before): a Cassandra node, the dataset written through
# CQL (1M key-value rows, 100k series × 10 rows) and compacted, and
# sstable-flight as a process beside it; then warm keyed reads, keyed
# throughput, cold first touch and idle RSS, scan rate and overload, each
# against the same shape through CQL, into build/lane-a/report.md and
# report.json (flags: go run ./cmd/bench-flight -h). About 5 minutes on a
# 2-core machine with the defaults (a minute or two writing the data, the
# rest 10 s steps; a first run also fetches Cassandra); under a minute with
# BENCH_FLIGHT_FLAGS='-kv-rows 20000 -ts-partitions 2000 -step 3s -warmup 1s -ramp 1,4 -overload-duration 5s'.
BENCH_FLIGHT_FLAGS ?=
bench-flight: deps
	$(HARNESS) run -mode oa -- $(GO) run ./cmd/bench-flight $(BENCH_FLIGHT_FLAGS)

# The server's OCI image, built without a docker engine by deploy/image
# (its own module, so go-containerregistry stays out of the server's):
# build/image/oci (an OCI layout of the linux/amd64 and linux/arm64
# index) and build/image/sstable-flight.tar (for docker load). How to
# push it, and the equivalent Dockerfile: docs/image.md.
image:
	cd deploy/image && $(GO) run . -go $(GO) -repo $(CURDIR) -out $(CURDIR)/$(BUILD)/image

# The Cassandra 5.0.9 image of the real-kubelet tests (issue #26; docs/image.md,
# "The test Cassandra image"), built here, never pulled: Cassandra's jars from
# the harness's Maven classpath, a Java 17 runtime jlinked from the JDK with
# the shared libraries it needs, and a static Go entrypoint. It writes
# build/image/cassandra.tar, a docker-save tarball tagged
# localhost/sstf-cassandra:5.0.9 (`ctr -n k8s.io images import` reads it), and
# rebuilds only when an input changed (build/image/cassandra.stamp.json).
.PHONY: cassandra-image
cassandra-image: deps
	cd deploy/image && $(GO) run . cassandra -go $(GO) -repo $(CURDIR) -out $(CURDIR)/$(BUILD)/image

# The image's tests: the Dockerfile against the builder's facts, and the
# built image unpacked and its entrypoint run as the image's user over
# the oa corpus, queried through Flight (needs root, for the uid).
image-test: cassandra-image
	cd deploy/image && $(GO) vet . && $(GO) test -count=1 .

# The Helm chart's tests (helm/charttest, its own Go module): every mode
# rendered and decoded strictly, the schema, lint; with SSTF_KUBECONFIG
# also server-side dry-run and SubjectAccessReviews on a real API server.
chart-test:
	cd helm/charttest && $(GO) test -count=1 ./...

# Three Cassandra 5.0 nodes on 127.0.0.1-3, a keyspace at RF 2 written
# through CQL, three servers planning over the ring, and a full scan
# through one of them printed with the rows each server served; it stops
# everything it started (README, "Run a cluster demo").
.PHONY: demo-cluster
DEMO_FLAGS ?=
demo-cluster: deps
	$(GO) build -o $(BUILD)/sstable-flight ./cmd/sstable-flight
	$(GO) run ./cmd/demo-cluster -server $(BUILD)/sstable-flight $(DEMO_FLAGS)

# Kubernetes 1.37.2 (kube-apiserver, kubelet, kube-controller-manager,
# kube-scheduler, kube-proxy) and etcd built from Go modules in their own
# module (tools/kube: k8s.io/kubernetes with its staging modules replaced
# by their releases, go.etcd.io/etcd/server/v3), CoreDNS from a module of
# its own, kube-harness and pause, into build/kube/bin; each group skipped
# when up to date, ~12 minutes on a cold build cache.
KUBE_BIN := $(BUILD)/kube/bin
kube-tools:
	@bash tools/kube/build.sh $(KUBE_BIN)

# The chart on a real single-node Kubernetes (issue #26; docs/testing.md,
# "A real single-node Kubernetes"): kube-harness -node (etcd, the API
# server, controller-manager, scheduler, kube-proxy, CoreDNS, containerd
# and a kubelet on a bridge of their own) inside a harness run whose node
# is the host's Cassandra of daemonset mode; the images built here, never
# pulled. deploy/local/kube-e2e.sh runs helm/charttest's kubelet-tagged
# tests: statefulset (auth from a Secret, discovery, a pod deleted and
# back, Trino, Prometheus), daemonset and cass-operator's pod.
kube-e2e: deps kube-tools image cassandra-image
	cd tools/kube && SSTF_KUBE_HARNESS=$(CURDIR)/$(KUBE_BIN)/kube-harness $(GO) test -count=1 \
		-run 'TestNodeTeardown|TestPause' ./cmd/kube-harness ./cmd/pause ./internal/binimage
	$(HARNESS) run -mode oa -- $(KUBE_BIN)/kube-harness run -node -- bash -c \
		'(cd tools/kube && $(GO) test -count=1 -run "TestNode$$" ./cmd/kube-harness) && bash deploy/local/kube-e2e.sh'

# The tests that need an API server, around one started for them
# (SSTF_KUBECONFIG): Kubernetes peer discovery and, where it exists, the
# chart's apiserver tests.
kube-test: kube-tools
	$(KUBE_BIN)/kube-harness run -- sh -c '$(GO) test -count=1 ./cluster/kube/... && \
		if [ -d helm/charttest ]; then cd helm/charttest && $(GO) test -count=1 ./...; fi'

# Trino through our connector against Trino's own cassandra connector
# (docs/loadgen.md; named bench-lane-b before): the same queries through
# one Trino's two catalogs, ours and Trino's cassandra connector, over one node holding
# 2M-row kv and ts tables, a 100-key join and keyed lookups at 8 and 32
# clients; report in build/lane-b/ (flags: go run ./cmd/bench-trino -h).
# A first run takes 20-25 minutes on two cores (writing the data and the
# 30 s load levels are most of it); a smoke run takes a few with
# BENCH_TRINO_FLAGS='-kv-rows 20000 -ts-partitions 2000 -runs 2 -profile-runs 1 -concurrency-duration 5s -concurrency-profile 5s'.
BENCH_TRINO_FLAGS ?=
bench-trino: deps
	$(HARNESS) run -mode oa -- $(GO) run ./cmd/bench-trino $(BENCH_TRINO_FLAGS)

clean:
	rm -rf $(BUILD)
