// Command kube-harness runs a real kube-apiserver and etcd on 127.0.0.1
// for tests: the API server the Kubernetes discovery and the chart's
// tests talk to.
//
//	kube-harness start -dir D    start both, write D/kubeconfig, return
//	kube-harness stop -dir D     stop what start left running in D
//	kube-harness env -dir D      print SSTF_KUBECONFIG=D/kubeconfig for eval
//	kube-harness run [-dir D] -- CMD ARGS...
//	                             start, run CMD with SSTF_KUBECONFIG set,
//	                             stop, exit with CMD's status
//
// The binaries are the ones `make kube-tools` builds into build/kube/bin,
// found beside this command (or by -bin). Every port is a free one, so
// several harnesses can run at once. The control plane is a self-made CA
// (D/pki) that signs the API server's serving certificate and an admin
// client certificate in the system:masters group, which the kubeconfig
// carries; the service-account signing key is made too, and
// authorization is RBAC only, so a SubjectAccessReview answers as a
// real cluster's RBAC would.
//
// It runs no controller-manager, scheduler or kubelet: objects are stored
// and validated but nothing acts on them. So no ServiceAccount "default"
// appears in a new namespace, a namespace once deleted stays Terminating,
// and the kubernetes Service's endpoints are not reconciled
// (--endpoint-reconciler-type=none: on loopback the reconciler would
// refuse 127.0.0.1).
//
// Waits are bounded: start gives etcd and the API server -timeout to
// answer their health checks and otherwise stops them and prints the
// tail of their logs (D/etcd.log, D/kube-apiserver.log). Each process's
// pid is in D/<name>.pid; stop checks the pid still runs that binary
// before it signals it, and gives it -timeout to exit after SIGTERM
// before SIGKILL.
package main
