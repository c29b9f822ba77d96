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
	fmt.Fprintln(os.Stderr, "usage: kube-harness start|stop|env -dir D | run [-dir D] -- CMD [ARGS...]")
	os.Exit(2)
}

func dispatch(ctx context.Context, verb string, args []string) (int, error) {
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	dir := fs.String("dir", "", "harness directory (pki, etcd data, logs, pid files, kubeconfig)")
	bin := fs.String("bin", "", "directory of the etcd and kube-apiserver binaries (default: this command's own)")
	timeout := fs.Duration("timeout", 3*time.Minute, "bound of each health wait and of each process's exit after SIGTERM")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	o := options{dir: *dir, bin: *bin, timeout: *timeout}
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
		pl, err := start(ctx, o)
		if err != nil {
			return 1, err
		}
		fmt.Printf("kube-apiserver at %s (pid file %s), etcd (pid file %s); kubeconfig %s\n",
			pl.url, pidFile(o.dir, apiserverName), pidFile(o.dir, etcdName), kubeconfigPath(o.dir))
		return 0, nil
	case "stop":
		return 0, stopAll(o)
	case "env":
		fmt.Printf("export %s=%s\n", envKubeconfig, kubeconfigPath(o.dir))
		return 0, nil
	case "run":
		return run(ctx, o, fs.Args())
	}
	usage()
	return 2, nil
}

// run starts a control plane (in a temporary directory unless -dir
// names one), runs the command with SSTF_KUBECONFIG set, and stops the
// plane whatever the command did.
func run(ctx context.Context, o options, argv []string) (code int, err error) {
	if len(argv) == 0 {
		return 2, errors.New("run: no command after --")
	}
	if o.dir == "" {
		tmp, err := os.MkdirTemp("", "kube-harness-")
		if err != nil {
			return 1, fmt.Errorf("make a harness directory: %w", err)
		}
		defer os.RemoveAll(tmp)
		o.dir = tmp
	} else if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return 1, fmt.Errorf("make %s: %w", o.dir, err)
	}
	pl, err := start(ctx, o)
	if err != nil {
		return 1, err
	}
	defer func() {
		if serr := pl.stop(); serr != nil {
			err = errors.Join(err, serr)
			if code == 0 {
				code = 1
			}
		}
	}()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envKubeconfig+"="+kubeconfigPath(o.dir))
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
