package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// containerdConfig is containerd 1.6's configuration (version 2) for
// the node, everything it keeps under D: its root, its state, its
// socket, runc's state, the network namespaces, the CNI configuration.
// Only what differs from containerd's defaults is set:
//
//   - cgroupfs (SystemdCgroup false): no systemd here, and the kubelet's
//     --cgroup-driver says the same;
//   - restrict_oom_score_adj: the machine lacks CAP_SYS_RESOURCE, so runc
//     cannot give a container an oom_score_adj below containerd's own,
//     and without this every RunPodSandbox fails in runc's nsexec;
//   - the sandbox image is ours, imported before the kubelet starts
//     (nothing is ever pulled);
//   - CNI plugins from Debian's containernetworking-plugins.
//
// The snapshotters that cannot work here (btrfs, zfs, devmapper, aufs)
// are disabled so their failures do not fill the log.
func containerdConfig(d nodeDir) string {
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	return strings.Join([]string{
		"version = 2",
		"root = " + q(d.path("containerd", "root")),
		"state = " + q(d.path("containerd", "state")),
		"oom_score = 0",
		`disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]`,
		"",
		"[grpc]",
		"  address = " + q(d.containerdSocket()),
		"",
		`[plugins."io.containerd.internal.v1.opt"]`,
		"  path = " + q(d.path("containerd", "opt")),
		"",
		`[plugins."io.containerd.grpc.v1.cri"]`,
		"  sandbox_image = " + q(pauseImageRef),
		"  restrict_oom_score_adj = true",
		"  netns_mounts_under_state_dir = true",
		`  stream_server_address = "127.0.0.1"`,
		"",
		`[plugins."io.containerd.grpc.v1.cri".containerd]`,
		`  snapshotter = "overlayfs"`,
		`  default_runtime_name = "runc"`,
		"",
		`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`,
		`  runtime_type = "io.containerd.runc.v2"`,
		"",
		`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]`,
		"  SystemdCgroup = false",
		"  Root = " + q(d.path("containerd", "runc")),
		"",
		`[plugins."io.containerd.grpc.v1.cri".cni]`,
		`  bin_dir = "/usr/lib/cni"`,
		"  conf_dir = " + q(d.cniConfDir()),
		"",
	}, "\n")
}

// startContainerd writes the configuration, starts containerd and waits
// until it answers on its socket.
func startContainerd(ctx context.Context, o options, d nodeDir) error {
	if err := os.MkdirAll(d.path("containerd"), 0o711); err != nil {
		return fmt.Errorf("make containerd's directory: %w", err)
	}
	conf := d.path("containerd", "config.toml")
	if err := os.WriteFile(conf, []byte(containerdConfig(d)), 0o644); err != nil {
		return fmt.Errorf("write containerd's configuration: %w", err)
	}
	bin, err := exec.LookPath("containerd")
	if err != nil {
		return fmt.Errorf("find containerd: %w", err)
	}
	p, err := startProc(o.dir, containerdName, bin, []string{"--config", conf})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	for {
		_, err := ctr(wctx, d.containerdSocket(), "version")
		if err == nil {
			return nil
		}
		if gone, perr := p.exited(); gone {
			return fmt.Errorf("start containerd: %w\n%s", perr, logTail(o.dir, containerdName, 20))
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("start containerd: no answer on %s within %s: %w\n%s", d.containerdSocket(), o.timeout, err, logTail(o.dir, containerdName, 20))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// importImages imports image tarballs (docker-archive or OCI) into
// containerd's k8s.io namespace, where the kubelet's CRI finds them.
func importImages(ctx context.Context, socket string, files ...string) error {
	for _, f := range files {
		if _, err := ctr(ctx, socket, "-n", "k8s.io", "images", "import", f); err != nil {
			return fmt.Errorf("import image %s: %w", f, err)
		}
	}
	return nil
}

// ctr runs containerd's own client against socket.
func ctr(ctx context.Context, socket string, args ...string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(cctx, "ctr", append([]string{"--address", socket}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
