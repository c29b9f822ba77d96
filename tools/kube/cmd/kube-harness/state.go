package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// stateFile, in D, records the machine as it was before a node changed
// it: what `stop` restores, even after the harness that started the
// node has crashed. It is written before the first change and removed
// last.
const stateFile = "node-state.json"

// hostState is the machine before the node.
type hostState struct {
	// Sysctls are the values, before, of every sysctl the node's
	// programs are known to change (watchedSysctls).
	Sysctls map[string]string `json:"sysctls"`
	// Absent are the host paths the node's programs may create outside
	// D that did not exist before (createdPaths): stop removes them.
	Absent []string `json:"absent"`
	// Rules are iptables-save and ip6tables-save before, whose new
	// chains and rules stop removes.
	Rules map[string]string `json:"rules"`
	// Tables are nftables's tables before ("ip nat", ...): iptables-nft
	// makes its tables on first use, and stop removes the new ones it
	// left empty.
	Tables []string `json:"tables"`
}

// watchedSysctls are the sysctls the node's programs change: the
// kubelet's kernel tunables (vm.overcommit_memory 0→1, vm.panic_on_oom,
// kernel.panic 1→10, kernel.panic_on_oops 0→1, the root keyring's
// limits), the bridge plugin's ip_forward (isGateway), kube-proxy's
// route_localnet and conntrack limits (set off in its configuration,
// watched anyway) and the bridge-netfilter switches kube-proxy relies
// on. Paths under /proc/sys; a missing one is skipped.
var watchedSysctls = []string{
	"vm/overcommit_memory",
	"vm/panic_on_oom",
	"kernel/panic",
	"kernel/panic_on_oops",
	"kernel/keys/root_maxkeys",
	"kernel/keys/root_maxbytes",
	"net/ipv4/conf/all/route_localnet",
	"net/bridge/bridge-nf-call-iptables",
	"net/bridge/bridge-nf-call-ip6tables",
	"net/netfilter/nf_conntrack_max",
	"net/netfilter/nf_conntrack_tcp_timeout_established",
	"net/netfilter/nf_conntrack_tcp_timeout_close_wait",
	"net/netfilter/nf_conntrack_tcp_be_liberal",
	"net/netfilter/nf_conntrack_udp_timeout",
	"net/netfilter/nf_conntrack_udp_timeout_stream",
	"net/ipv6/conf/all/forwarding",
	"net/ipv6/conf/default/forwarding",
	"net/ipv4/conf/default/forwarding",
	"net/ipv4/conf/all/forwarding",
	// Last: writing it also writes every interface's forwarding.
	"net/ipv4/ip_forward",
}

// createdPaths are the places outside D that the node's programs create
// whatever their configuration says: the kubelet's container log links
// and its defaults, CNI's cache (libcni writes /var/lib/cni/results),
// containerd's shim sockets (/run/containerd/s) and defaults, and the
// directory of network namespaces.
var createdPaths = []string{
	"/var/log/containers",
	"/var/log/pods",
	"/var/lib/kubelet",
	"/var/lib/cni",
	"/etc/cni",
	"/opt/cni",
	"/run/containerd",
	"/var/lib/containerd",
	"/opt/containerd",
	"/run/netns",
	"/usr/libexec/kubernetes",
	"/etc/kubernetes",
}

func statePath(dir string) string { return filepath.Join(dir, stateFile) }

// recordState takes the machine's state and writes it to D before the
// node changes anything.
func recordState(dir string) (*hostState, error) {
	st := &hostState{Sysctls: map[string]string{}, Rules: map[string]string{}}
	for _, k := range watchedSysctls {
		v, err := os.ReadFile(filepath.Join("/proc/sys", k))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read sysctl %s: %w", k, err)
		}
		st.Sysctls[k] = strings.TrimSpace(string(v))
	}
	for _, p := range createdPaths {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			st.Absent = append(st.Absent, p)
		}
	}
	for _, cmd := range []string{"iptables-save", "ip6tables-save"} {
		out, err := command(cmd)
		if err != nil {
			return nil, err
		}
		st.Rules[cmd] = out
	}
	tables, err := nftTables()
	if err != nil {
		return nil, err
	}
	st.Tables = tables
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the node's state: %w", err)
	}
	if err := os.WriteFile(statePath(dir), b, 0o644); err != nil {
		return nil, fmt.Errorf("write the node's state: %w", err)
	}
	return st, nil
}

// readState reads what recordState wrote; nil if there is none (no node
// was started in dir, or its stop has finished).
func readState(dir string) (*hostState, error) {
	b, err := os.ReadFile(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the node's state: %w", err)
	}
	st := &hostState{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("read the node's state %s: %w", statePath(dir), err)
	}
	return st, nil
}

// restoreSysctls writes back every watched sysctl whose value changed.
func (st *hostState) restoreSysctls() error {
	var errs []error
	for _, k := range watchedSysctls {
		before, ok := st.Sysctls[k]
		if !ok {
			continue
		}
		p := filepath.Join("/proc/sys", k)
		now, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("read sysctl %s: %w", k, err))
			continue
		}
		if strings.TrimSpace(string(now)) == before {
			continue
		}
		if err := os.WriteFile(p, []byte(before+"\n"), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore sysctl %s to %s: %w", k, before, err))
		}
	}
	return errors.Join(errs...)
}
