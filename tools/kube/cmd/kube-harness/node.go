package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sstable-flight/sstable-flight/tools/kube/internal/binimage"
)

// The node's network: one bridge of our own with a private pod subnet,
// its first address the node's (API server, kubelet, CoreDNS), and a
// service range routed onto the bridge so no ClusterIP packet can take
// the machine's default route.
const (
	bridgeName    = "sstfbr0"
	podSubnet     = "10.88.0.0/24"
	nodeIP        = "10.88.0.1"
	nodeServices  = "10.96.0.0/16"
	nodeServiceIP = "10.96.0.1" // the kubernetes Service's ClusterIP
	nodeName      = "sstf-node"
	clusterDomain = "cluster.local"
	pauseImageRef = "sstf.local/pause:1"
	pauseName     = "pause" // the binary, beside the others
)

// Names of the node's processes (their pid files and logs in D).
const (
	containerdName = "containerd"
	kubeletName    = "kubelet"
	proxyName      = "kube-proxy"
	schedulerName  = "kube-scheduler"
	kcmName        = "kube-controller-manager"
	corednsName    = "coredns"
)

// nodeProcNames are the node's processes in the order they start.
var nodeProcNames = []string{etcdName, apiserverName, containerdName, kubeletName, proxyName, schedulerName, kcmName, corednsName}

// Variables the command run by `run -node` gets, besides SSTF_KUBECONFIG.
const (
	envNode       = "SSTF_KUBE_NODE"
	envNodeIP     = "SSTF_KUBE_NODE_IP"
	envContainerd = "SSTF_KUBE_CONTAINERD"
)

// node is a started node: the plane under it and its directory.
type node struct {
	opts  options
	plane *plane
}

// nodeDir names the files of a node under D.
type nodeDir string

func (d nodeDir) path(elem ...string) string {
	return filepath.Join(append([]string{string(d)}, elem...)...)
}
func (d nodeDir) containerdSocket() string { return d.path("containerd", "containerd.sock") }
func (d nodeDir) cniConfDir() string       { return d.path("cni", "net.d") }

// nodeEnv is what CMD (and `env`) gets to use the node.
func nodeEnv(dir string) []string {
	return []string{
		envKubeconfig + "=" + kubeconfigPath(dir),
		envNode + "=" + nodeName,
		envNodeIP + "=" + nodeIP,
		envContainerd + "=" + nodeDir(dir).containerdSocket(),
	}
}

// nodeSpec is the API server of a node: on the bridge address, where
// pods reach it through the kubernetes Service; Node and RBAC
// authorization with NodeRestriction, as kubeadm sets them up; the
// lease endpoint reconciler on, so the kubernetes Service's
// EndpointSlice names the bridge address; and a client certificate for
// the kubelet's API (logs, exec, port-forward), checked against the
// kubelet's serving certificate.
func nodeSpec() planeSpec {
	return planeSpec{
		host:         nodeIP,
		serviceRange: nodeServices,
		servingIPs:   []net.IP{net.ParseIP(nodeIP), net.IPv4(127, 0, 0, 1), net.ParseIP(nodeServiceIP)},
		certs:        nodeCerts,
		apiArgs: func(p pki) []string {
			return []string{
				"--authorization-mode=Node,RBAC",
				"--enable-admission-plugins=NodeRestriction",
				"--kubelet-client-certificate=" + p.path("apiserver-kubelet-client.crt"),
				"--kubelet-client-key=" + p.path("apiserver-kubelet-client.key"),
				"--kubelet-certificate-authority=" + p.path("ca.crt"),
				// The node's name resolves nowhere; its address is the
				// one its serving certificate names.
				"--kubelet-preferred-address-types=InternalIP",
				// The chart's daemonset mode may ask for a privileged
				// container; the API server refuses them unless allowed.
				"--allow-privileged=true",
			}
		},
	}
}

// nodeCerts issues the node components' pairs. Each user name is the
// one Kubernetes's bootstrap RBAC policy (or the Node authorizer)
// already grants what that component needs; CoreDNS's is bound by
// corednsRBAC.
func nodeCerts(a *authority) error {
	clients := []struct{ pair, user, group string }{
		{"kubelet", "system:node:" + nodeName, "system:nodes"},
		{"kube-controller-manager", "system:kube-controller-manager", ""},
		{"kube-scheduler", "system:kube-scheduler", ""},
		{"kube-proxy", "system:kube-proxy", ""},
		{"coredns", corednsUser, ""},
		// The API server's client of the kubelets: system:masters, so
		// the kubelet's webhook authorization allows logs and exec.
		{"apiserver-kubelet-client", "kube-apiserver-kubelet-client", adminGroup},
	}
	for _, c := range clients {
		var groups []string
		if c.group != "" {
			groups = []string{c.group}
		}
		if err := a.client(c.pair, c.user, groups...); err != nil {
			return err
		}
	}
	return a.serving("kubelet-serving", nodeName, []string{nodeName}, []net.IP{net.ParseIP(nodeIP)})
}

// startNode starts a node in o.dir: it records what it is about to
// change (state.go) before changing anything, then brings up the
// network, the control plane, containerd and the node's components, and
// waits until the node is Ready and its DNS answers. On failure it tears
// down what it made; the error carries the log tails.
func startNode(ctx context.Context, o options) (n *node, err error) {
	began := time.Now()
	d := nodeDir(o.dir)
	if err := checkNodePrereqs(o); err != nil {
		return nil, err
	}
	if _, err := os.Stat(d.path(stateFile)); err == nil {
		return nil, fmt.Errorf("start a node in %s: %s is there, left by a node that was not stopped; run `kube-harness stop -dir %s` first", o.dir, d.path(stateFile), o.dir)
	}
	if err := checkFreeHost(); err != nil {
		return nil, err
	}
	// A fresh start: the last node's state and logs are not this one's.
	stale := []string{"containerd", "cni", "kubelet", "node-config", "pod-logs", "volume-plugins", "images", proxyName + "-cleanup.log"}
	for _, name := range nodeProcNames {
		stale = append(stale, name+".log")
	}
	for _, sub := range stale {
		if err := os.RemoveAll(d.path(sub)); err != nil {
			return nil, fmt.Errorf("clear %s: %w", d.path(sub), err)
		}
	}
	st, err := recordState(o.dir)
	if err != nil {
		return nil, err
	}
	n = &node{opts: o}
	defer func() {
		if err != nil {
			if terr := stopNode(o); terr != nil {
				err = errors.Join(err, fmt.Errorf("tear down the failed node: %w", terr))
			}
			n = nil
		}
	}()
	if err := setUpNetwork(d, st); err != nil {
		return nil, err
	}
	pl, err := startPlane(ctx, o, nodeSpec())
	if err != nil {
		return nil, err
	}
	n.plane = pl
	cfg, err := configureNode(o, d, pl)
	if err != nil {
		return nil, err
	}
	cs, err := adminClientset(o.dir)
	if err != nil {
		return nil, err
	}
	if err := corednsRBAC(ctx, cs); err != nil {
		return nil, err
	}
	if err := startContainerd(ctx, o, d); err != nil {
		return nil, err
	}
	// The sandbox image, made afresh from the pause binary (milliseconds)
	// so it always matches the binary and the reference here.
	pauseTar := d.path("images", "pause.tar")
	if err := os.MkdirAll(filepath.Dir(pauseTar), 0o755); err != nil {
		return nil, fmt.Errorf("make the images directory: %w", err)
	}
	err = binimage.Write(pauseTar, binimage.Spec{
		Ref:        pauseImageRef,
		Binaries:   []string{filepath.Join(o.bin, pauseName)},
		Entrypoint: []string{"/" + pauseName},
		User:       "65535:65535", // as Kubernetes's own pause image
	})
	if err != nil {
		return nil, err
	}
	if err := importImages(ctx, d.containerdSocket(), pauseTar); err != nil {
		return nil, err
	}
	for _, c := range cfg.components {
		if _, err := startProc(o.dir, c.name, c.bin, c.args); err != nil {
			return nil, err
		}
	}
	if err := waitNode(ctx, o, cs, cfg); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "kube-harness: node %s Ready in %s\n", nodeName, time.Since(began).Round(100*time.Millisecond))
	return n, nil
}

// checkNodePrereqs fails with what is missing: root, the binaries `make
// kube-tools` builds, and the Debian packages install-deps.sh installs.
func checkNodePrereqs(o options) error {
	if os.Geteuid() != 0 {
		return errors.New("start a node: must run as root (it makes a bridge, iptables rules, cgroups and mounts)")
	}
	// Unix socket paths are at most 107 bytes; the longest under D is
	// the kubelet's D/kubelet/pod-resources/kubelet.sock.
	if sock := nodeDir(o.dir).path("kubelet", "pod-resources", "kubelet.sock"); len(sock) > 107 {
		return fmt.Errorf("start a node: -dir %s is too long for the sockets under it (%s is %d bytes, at most 107)", o.dir, sock, len(sock))
	}
	var missing []string
	for _, name := range []string{etcdName, apiserverName, kubeletName, proxyName, schedulerName, kcmName, corednsName, pauseName} {
		if !fileExists(filepath.Join(o.bin, name)) {
			missing = append(missing, filepath.Join(o.bin, name)+" (make kube-tools)")
		}
	}
	for _, name := range []string{"containerd", "containerd-shim-runc-v2", "runc", "ctr", "ip", "iptables", "ip6tables", "iptables-save", "nft", "conntrack"} {
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name+" (deploy/local/install-deps.sh)")
		}
	}
	for _, plugin := range []string{"bridge", "host-local", "loopback", "portmap"} {
		if !fileExists(filepath.Join("/usr/lib/cni", plugin)) {
			missing = append(missing, "/usr/lib/cni/"+plugin+" (deploy/local/install-deps.sh)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("start a node: missing %s", strings.Join(missing, ", "))
	}
	return nil
}

// checkFreeHost fails if another node already runs on this machine:
// its bridge is there (one node per machine, since the bridge, its
// subnet and port 53 on its address are fixed), or some kubelet's pod
// cgroups are (teardown kills and removes everything under /kubepods).
func checkFreeHost() error {
	if linkExists(bridgeName) {
		return fmt.Errorf("start a node: the bridge %s exists, so another node runs on this machine (or one was not stopped: kube-harness stop -dir ITS_DIR)", bridgeName)
	}
	if dirs, err := podCgroups(); err != nil {
		return err
	} else if len(dirs) > 0 {
		return fmt.Errorf("start a node: pod cgroups exist (%s): another kubelet runs on this machine, or a node was not stopped", dirs[len(dirs)-1])
	}
	return nil
}
