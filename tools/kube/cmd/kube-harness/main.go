package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// envKubeconfig is the variable the tests read the kubeconfig's path
// from.
const envKubeconfig = "SSTF_KUBECONFIG"

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := dispatch(ctx, os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-harness:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: kube-harness start [-node] -dir D | stop -dir D | env -dir D
       kube-harness run [-node] [-dir D] -- CMD [ARGS...]
       kube-harness images -dir D FILE...
       kube-harness pack -o FILE -ref REF [-user U] BINARY...`)
	os.Exit(2)
}

func dispatch(ctx context.Context, verb string, args []string) (int, error) {
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	dir := fs.String("dir", "", "harness directory (pki, etcd data, logs, pid files, kubeconfig)")
	bin := fs.String("bin", "", "directory of the etcd and kube-apiserver binaries (default: this command's own)")
	timeout := fs.Duration("timeout", 3*time.Minute, "bound of each health wait and of each process's exit after SIGTERM")
	withNode := fs.Bool("node", false, "start (or run in) a single-node Kubernetes, not just the API server")
	out := fs.String("o", "", "pack: the image tarball to write")
	ref := fs.String("ref", "", "pack: the image's reference, e.g. sstf.local/probe:1")
	user := fs.String("user", "", "pack: the user the image runs as (default root)")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	o := options{dir: *dir, bin: *bin, timeout: *timeout, node: *withNode}
	if verb == "pack" {
		return pack(*out, *ref, *user, fs.Args())
	}
	if o.bin == "" {
		self, err := os.Executable()
		if err != nil {
			return 1, fmt.Errorf("find the binaries: %w", err)
		}
		o.bin = filepath.Dir(self)
	}
	if verb != "run" && o.dir == "" {
		return 2, fmt.Errorf("%s: -dir is required", verb)
	}
	if o.dir != "" {
		abs, err := filepath.Abs(o.dir)
		if err != nil {
			return 2, fmt.Errorf("read -dir: %w", err)
		}
		o.dir = abs
	}
	switch verb {
	case "start":
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			return 1, fmt.Errorf("make %s: %w", o.dir, err)
		}
		if o.node {
			n, err := startNode(ctx, o)
			if err != nil {
				return 1, err
			}
			fmt.Printf("node %s at %s, API server %s; kubeconfig %s; containerd %s; logs and pid files in %s\n",
				nodeName, nodeIP, n.plane.url, kubeconfigPath(o.dir), nodeDir(o.dir).containerdSocket(), o.dir)
			return 0, nil
		}
		pl, err := start(ctx, o)
		if err != nil {
			return 1, err
		}
		fmt.Printf("kube-apiserver at %s (pid file %s), etcd (pid file %s); kubeconfig %s\n",
			pl.url, pidFile(o.dir, apiserverName), pidFile(o.dir, etcdName), kubeconfigPath(o.dir))
		return 0, nil
	case "stop":
		if st, err := readState(o.dir); err != nil {
			return 1, err
		} else if st != nil {
			return 0, stopNode(o)
		}
		return 0, stopAll(o)
	case "env":
		env := []string{envKubeconfig + "=" + kubeconfigPath(o.dir)}
		if st, err := readState(o.dir); err != nil {
			return 1, err
		} else if st != nil {
			env = nodeEnv(o.dir)
		}
		for _, kv := range env {
			fmt.Printf("export %s\n", kv)
		}
		return 0, nil
	case "images":
		if err := importImages(ctx, nodeDir(o.dir).containerdSocket(), fs.Args()...); err != nil {
			return 1, err
		}
		return 0, nil
	case "run":
		return run(ctx, o, fs.Args())
	}
	usage()
	return 2, nil
}

// run starts a control plane, or with -node a node (in a temporary
// directory unless -dir names one), runs the command with
// SSTF_KUBECONFIG (and for a node SSTF_KUBE_NODE, SSTF_KUBE_NODE_IP,
// SSTF_KUBE_CONTAINERD) set, and stops it whatever the command did.
func run(ctx context.Context, o options, argv []string) (code int, err error) {
	if len(argv) == 0 {
		return 2, errors.New("run: no command after --")
	}
	if o.dir == "" {
		tmp, err := os.MkdirTemp("", "kube-harness-")
		if err != nil {
			return 1, fmt.Errorf("make a harness directory: %w", err)
		}
		defer removeHarnessDir(tmp)
		o.dir = tmp
	} else if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return 1, fmt.Errorf("make %s: %w", o.dir, err)
	}
	env := []string{envKubeconfig + "=" + kubeconfigPath(o.dir)}
	stop := func() error { return stopAll(o) }
	if o.node {
		if _, err := startNode(ctx, o); err != nil {
			return 1, err
		}
		env = nodeEnv(o.dir)
		stop = func() error { return stopNode(o) }
	} else if _, err := start(ctx, o); err != nil {
		return 1, err
	}
	defer func() {
		if serr := stop(); serr != nil {
			err = errors.Join(err, serr)
			if code == 0 {
				code = 1
			}
		}
	}()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	// On ^C the command gets SIGTERM, not an immediate kill, and some time
	// to clean up before the plane goes away under it.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode(), nil
		}
		return 1, fmt.Errorf("run %s: %w", argv[0], err)
	}
	return 0, nil
}

// removeHarnessDir removes run's temporary directory, unless a node's
// teardown did not finish (its state file is what a second stop works
// from) or something is still mounted under it (a kubelet's subPath
// bind mount left there would point at a directory of the host, which
// RemoveAll would empty).
func removeHarnessDir(dir string) {
	if _, err := os.Stat(statePath(dir)); err == nil {
		fmt.Fprintf(os.Stderr, "kube-harness: left %s in place: the node's teardown did not finish; run kube-harness stop -dir %s\n", dir, dir)
		return
	}
	if points, err := mountsUnder([]string{dir + "/"}); err != nil || len(points) > 0 {
		fmt.Fprintf(os.Stderr, "kube-harness: left %s in place: still mounted under it: %v %v\n", dir, points, err)
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "kube-harness: remove %s: %v\n", dir, err)
	}
}
