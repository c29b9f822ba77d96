package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// The node's network, made before anything else and removed after
// everything else:
//
//   - the bridge, with the node's address on it: the kubelet's node IP,
//     the API server's advertise address and CoreDNS's listen address
//     cannot be loopback, and pods reach this one directly;
//   - a route of the service range onto the bridge, so a ClusterIP with
//     no kube-proxy rule (yet) stays on the bridge instead of leaving
//     by the default route;
//   - a FORWARD rule dropping whatever comes in from the bridge to leave
//     by another interface: nothing a pod sends is forwarded off it;
//   - the CNI configuration containerd reads: the bridge plugin on that
//     bridge, host-local addresses from the pod subnet, the node as the
//     pods' gateway to the service range only (no default route, no
//     masquerading), and portmap for hostPort.

// forwardDrop is the FORWARD rule, as iptables's arguments after -I/-D
// FORWARD.
var forwardDrop = []string{"-i", bridgeName, "!", "-o", bridgeName, "-j", "DROP", "-m", "comment", "--comment", "kube-harness: nothing leaves the pod bridge"}

func setUpNetwork(d nodeDir, _ *hostState) error {
	steps := [][]string{
		{"ip", "link", "add", bridgeName, "type", "bridge"},
		{"ip", "addr", "add", nodeIP + "/24", "dev", bridgeName},
		{"ip", "link", "set", bridgeName, "up"},
		{"ip", "route", "add", nodeServices, "dev", bridgeName, "src", nodeIP},
		append([]string{"iptables", "-I", "FORWARD"}, forwardDrop...),
	}
	for _, s := range steps {
		if _, err := command(s[0], s[1:]...); err != nil {
			return fmt.Errorf("set up the node's network: %w", err)
		}
	}
	return writeCNIConfig(d)
}

// writeCNIConfig writes the conflist containerd's CRI plugin loads.
func writeCNIConfig(d nodeDir) error {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "sstf",
		"plugins": []any{
			map[string]any{
				"type":             "bridge",
				"bridge":           bridgeName,
				"isGateway":        true,
				"isDefaultGateway": false,
				"ipMasq":           false,
				// A pod reaching itself through its own Service's
				// ClusterIP comes back in on its own port.
				"hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"ranges":  [][]map[string]string{{{"subnet": podSubnet, "gateway": nodeIP}}},
					"routes":  []map[string]string{{"dst": nodeServices}},
					"dataDir": d.path("cni", "ipam"),
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the CNI configuration: %w", err)
	}
	if err := os.MkdirAll(d.cniConfDir(), 0o755); err != nil {
		return fmt.Errorf("make the CNI configuration directory: %w", err)
	}
	if err := os.WriteFile(d.path("cni", "net.d", "10-sstf.conflist"), b, 0o644); err != nil {
		return fmt.Errorf("write the CNI configuration: %w", err)
	}
	return nil
}

// removeBridge deletes the veths still on the bridge (a pod sandbox
// whose teardown never ran), then the bridge; its address and the
// service route go with it.
func removeBridge() error {
	if !linkExists(bridgeName) {
		return nil
	}
	out, err := command("ip", "-o", "link", "show", "master", bridgeName)
	if err != nil {
		return fmt.Errorf("list the bridge's ports: %w", err)
	}
	for _, line := range strings.Split(out, "\n") {
		// "7: veth1234@if3: <...> ..."
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		port, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		if _, err := command("ip", "link", "del", port); err != nil && linkExists(port) {
			return fmt.Errorf("remove the bridge's port %s: %w", port, err)
		}
	}
	if _, err := command("ip", "link", "del", bridgeName); err != nil {
		return fmt.Errorf("remove the bridge: %w", err)
	}
	return nil
}

func linkExists(name string) bool {
	_, err := os.Stat("/sys/class/net/" + name)
	return err == nil
}

// command runs name with args and returns its output; the error names
// the command and carries its output.
func command(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
