package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/sstable-flight/sstable-flight/internal/cassandratest"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := dispatch(ctx, os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "cassandra-harness:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cassandra-harness run|start|stop|nodetool|sstabledump|env [flags] [args]")
	os.Exit(2)
}

func dispatch(ctx context.Context, verb string, args []string) (int, error) {
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	mode := fs.String("mode", "oa", "storage mode: nb, oa or da")
	dir := fs.String("dir", "", "node directory (config, data, logs, node.json)")
	heap := fs.Int("heap-mb", 0, "JVM heap in MiB (default 768)")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	m, err := cassandratest.ParseMode(*mode)
	if err != nil {
		return 2, err
	}
	opts := cassandratest.Options{Mode: m, Dir: *dir, HeapMB: *heap}
	switch verb {
	case "run":
		return run(ctx, opts, fs.Args())
	case "start":
		if *dir == "" {
			return 2, errors.New("start: -dir is required (the node outlives this command)")
		}
		opts.Detached = true
		n, err := cassandratest.Start(ctx, opts)
		if err != nil {
			return 1, err
		}
		fmt.Printf("cassandra %s (%s) pid %d, CQL %s, data %s\n", cassandratest.Version, n.Mode, n.Pid, n.Addr(), n.DataDir())
		return 0, nil
	}
	if *dir == "" {
		return 2, fmt.Errorf("%s: -dir is required", verb)
	}
	n, err := cassandratest.AttachDir(ctx, *dir, verb == "stop")
	if err != nil {
		return 1, err
	}
	switch verb {
	case "stop":
		return 0, n.Stop()
	case "env":
		for _, e := range n.Env() {
			fmt.Println("export " + e)
		}
		return 0, nil
	case "nodetool":
		out, err := n.NodeTool(ctx, fs.Args()...)
		os.Stdout.Write(out)
		return 0, err
	case "sstabledump":
		if fs.NArg() < 1 {
			return 2, errors.New("sstabledump: name a Data.db file")
		}
		out, err := n.SSTableDump(ctx, fs.Arg(0), fs.Args()[1:]...)
		os.Stdout.Write(out)
		return 0, err
	}
	usage()
	return 2, nil
}

// run starts a node, runs one command with the node's variables in its
// environment (so every test package shares this node), then stops the
// node and checks that its pid is gone.
func run(ctx context.Context, opts cassandratest.Options, argv []string) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("run: give a command after --")
	}
	n, err := cassandratest.Start(ctx, opts)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(os.Stderr, "cassandra-harness: cassandra %s (%s) pid %d on %s\n", cassandratest.Version, n.Mode, n.Pid, n.Addr())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), n.Env()...)
	runErr := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit):
		code, runErr = exit.ExitCode(), nil
	case runErr != nil:
		code = 1
	}
	pid := n.Pid
	if err := n.Stop(); err != nil {
		return 1, errors.Join(runErr, err)
	}
	if cassandratest.Alive(pid) {
		return 1, fmt.Errorf("cassandra pid %d still alive after stop", pid)
	}
	return code, runErr
}
