// Command kube-harness runs real Kubernetes for tests: by default a
// kube-apiserver and etcd on 127.0.0.1 (the API server the Kubernetes
// discovery and the chart's apiserver tests talk to), or with -node a
// whole single-node cluster whose pods really run (the chart's
// end-to-end tests).
//
//	kube-harness start [-node] -dir D  start, write D/kubeconfig, return
//	kube-harness stop -dir D           stop and tear down what start left
//	                                   in D (either kind)
//	kube-harness env -dir D            print the variables below, for eval
//	kube-harness run [-node] [-dir D] -- CMD ARGS...
//	                                   start, run CMD with the variables
//	                                   set, stop, exit with CMD's status
//	kube-harness images -dir D FILE... import image tarballs into the
//	                                   node's containerd
//	kube-harness pack -o FILE -ref REF [-user U] BINARY...
//	                                   write an image of static binaries
//	                                   (docker-archive, for `images`)
//
// The binaries are the ones `make kube-tools` builds into build/kube/bin,
// found beside this command (or by -bin). CMD gets SSTF_KUBECONFIG (an
// admin kubeconfig); with -node also SSTF_KUBE_NODE (the node's name),
// SSTF_KUBE_NODE_IP (its address on the bridge) and SSTF_KUBE_CONTAINERD
// (containerd's socket, for `ctr --address $SSTF_KUBE_CONTAINERD -n
// k8s.io images import FILE`).
//
// # The API server alone
//
// Every port is a free one, so several such harnesses can run at once.
// The control plane is a self-made CA (D/pki) that signs the API
// server's serving certificate and an admin client certificate in the
// system:masters group, which the kubeconfig carries; the
// service-account signing key is made too, and authorization is RBAC
// only, so a SubjectAccessReview answers as a real cluster's RBAC would.
// No controller-manager, scheduler or kubelet runs: objects are stored
// and validated but nothing acts on them. So no ServiceAccount "default"
// appears in a new namespace, a namespace once deleted stays
// Terminating, and the kubernetes Service's endpoints are not reconciled
// (--endpoint-reconciler-type=none: on loopback the reconciler would
// refuse 127.0.0.1).
//
// # A node
//
// With -node (root only; one node per machine) the harness makes, in
// this order:
//
//   - D/node-state.json, before changing anything: the machine before
//     the node (the sysctls the node's programs change, which of the
//     host paths they create were absent, iptables-save and
//     ip6tables-save, nftables's tables);
//   - the network (net.go): the bridge sstfbr0 with 10.88.0.1/24, the
//     node's one address; the service range 10.96.0.0/16 routed onto it;
//     a FORWARD rule dropping anything from the bridge to another
//     interface; the CNI configuration (bridge plugin, host-local
//     addresses from 10.88.0.0/24, the node as the pods' gateway to the
//     service range only, no default route, no masquerading; portmap);
//   - etcd on 127.0.0.1 and the API server on 10.88.0.1 (node.go's
//     nodeSpec): Node and RBAC authorization, NodeRestriction, the lease
//     endpoint reconciler (the kubernetes Service's endpoint is
//     10.88.0.1), a serving certificate naming 10.88.0.1, 127.0.0.1,
//     10.96.0.1 and kubernetes.default.svc.cluster.local, and a client
//     certificate for the kubelet's API, so logs and exec work;
//   - client certificates of the same CA for each component (the
//     kubelet's system:node:sstf-node in system:nodes, the bootstrap
//     policy's users for the others, a ClusterRole of CoreDNS's reads
//     for CoreDNS's) and their kubeconfigs (components.go);
//   - containerd 1.6 run by hand with everything under D/containerd
//     (containerd.go): cgroupfs, restrict_oom_score_adj (no
//     CAP_SYS_RESOURCE here), network namespaces under its state, CNI
//     from /usr/lib/cni, the sandbox image sstf.local/pause:1, made from
//     our pause binary and imported before the kubelet starts;
//   - the kubelet, configured by a file (D/node-config/kubelet.yaml):
//     cgroup v1 accepted (failCgroupV1 false), cgroupfs, failSwapOn
//     false, oomScoreAdj 0, containerd's socket; its API on 10.88.0.1
//     with a serving certificate of the CA; cluster DNS at 10.88.0.1; no
//     host resolv.conf; eviction and image GC off. Then
//     kube-proxy in iptables mode, the scheduler, the controller-manager
//     (service-account credentials per controller, the CA published as
//     kube-root-ca.crt) and CoreDNS on 10.88.0.1:53 with the kubernetes
//     plugin only (built without forward: no query leaves the machine).
//
// start then waits, within -timeout, for the node Ready, the default
// ServiceAccount and kube-root-ca.crt, kube-proxy's DNAT of 10.96.0.1 and
// CoreDNS answering kubernetes.default.svc.cluster.local; a component
// that exits, or a wait that times out, fails start with the tails of
// the logs concerned, after tearing down what it made.
//
// Teardown (teardown.go; stop, the end of run, a failed start) stops
// the controllers, deletes every pod so the kubelet tears the sandboxes
// down, stops every process by its pid file, kills what is left in the
// pods' cgroups and containerd's shims, unmounts everything under D,
// removes the pods' cgroups, kube-proxy's, the kubelet's and the CNI
// plugins' rules and chains and ours, the nftables tables iptables made,
// the bridge, restores the sysctls and removes the host paths the
// programs created (/var/lib/kubelet, /var/lib/cni, /var/log/containers,
// /run/containerd, ...). It needs only D, so it also works after the
// harness crashed, and it checks that nothing is left (else it fails and
// keeps the state file, to be run again).
//
// Waits are bounded: -timeout for each health wait, the node's waits
// together, and each process's exit after SIGTERM before SIGKILL. Each
// process's pid is in D/<name>.pid and its log in D/<name>.log; stop
// checks the pid still runs that binary before it signals it.
package main
