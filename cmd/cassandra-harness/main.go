package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
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
	fmt.Fprintln(os.Stderr, "usage: cassandra-harness run|start|stop|nodetool|sstabledump|env|modes [flags] [args]")
	os.Exit(2)
}

func dispatch(ctx context.Context, verb string, args []string) (int, error) {
	if verb == "modes" {
		// One line per mode, in corpus order, for scripts and for whoever
		// wonders what -mode accepts: "nb big nb,nc".
		for _, m := range cassandratest.Modes {
			fmt.Printf("%s %s %s\n", m, m.Format(), strings.Join(m.Versions(), ","))
		}
		return 0, nil
	}
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	mode := fs.String("mode", "oa", "storage mode: one of "+strings.Join(cassandratest.ModeNames(), ", "))
	dir := fs.String("dir", "", "node directory (config, data, logs, node.json)")
	heap := fs.Int("heap-mb", 0, "JVM heap in MiB (default 768; 512 per cluster node)")
	nodes := fs.Int("cluster", 0, "also (run) or instead (start) a cluster of this many nodes on 127.0.0.1, .2, …")
	cqlPort := fs.Int("cql-port", 0, "the node's CQL port (default: a free one)")
	auth := fs.Bool("auth", false, "PasswordAuthenticator (superuser cassandra/cassandra), CassandraAuthorizer")
	role := fs.String("role", "", "with -auth: a login role to create (no superuser, no grants)")
	rolePassword := fs.String("role-password", "", "the password of -role")
	clientTLS := fs.Bool("client-tls", false, "TLS only on the CQL port (client_encryption_options), with a CA and certificates generated in DIR/tls")
	requireClientAuth := fs.Bool("require-client-auth", false, "with -client-tls: require a client certificate (DIR/tls/client.pem)")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	m, err := cassandratest.ParseMode(*mode)
	if err != nil {
		return 2, err
	}
	opts := cassandratest.Options{Mode: m, Dir: *dir, HeapMB: *heap, CQLPort: *cqlPort}
	switch {
	case *role != "" && !*auth, *rolePassword != "" && *role == "":
		return 2, errors.New("-role needs -auth, and -role-password needs -role")
	case *role != "" && *rolePassword == "":
		return 2, errors.New("-role needs -role-password")
	case *requireClientAuth && !*clientTLS:
		return 2, errors.New("-require-client-auth needs -client-tls")
	case (*auth || *clientTLS || *cqlPort != 0) && *nodes > 0:
		return 2, errors.New("-auth, -client-tls and -cql-port are for a lone node, not -cluster")
	}
	if *auth {
		opts.Auth = &cassandratest.Auth{Role: *role, Password: *rolePassword}
	}
	if *clientTLS {
		opts.ClientTLS = &cassandratest.ClientTLS{RequireClientAuth: *requireClientAuth}
	}
	switch verb {
	case "run":
		var copts *cassandratest.ClusterOptions
		if *nodes > 0 {
			// The cluster lives in a directory of its own; -dir names the
			// lone node's.
			copts = &cassandratest.ClusterOptions{Mode: m, Nodes: *nodes}
		}
		return run(ctx, opts, copts, fs.Args())
	case "start":
		if *dir == "" {
			return 2, errors.New("start: -dir is required (the node outlives this command)")
		}
		if *nodes > 0 {
			c, err := cassandratest.StartCluster(ctx, cassandratest.ClusterOptions{Mode: m, Dir: *dir, Nodes: *nodes, HeapMB: *heap, Detached: true})
			if err != nil {
				return 1, err
			}
			fmt.Printf("cassandra %s (%s) cluster of %d in %s:\n%s", cassandratest.Version, m, len(c.Nodes), c.Dir, c.Describe())
			return 0, nil
		}
		opts.Detached = true
		n, err := cassandratest.Start(ctx, opts)
		if err != nil {
			return 1, err
		}
		fmt.Printf("cassandra %s (%s) pid %d, CQL %s, data %s\n", cassandratest.Version, n.Mode, n.Pid, n.Addr(), n.DataDir())
		if n.Auth != nil {
			fmt.Printf("  authentication: superuser %s/%s; role %q\n", cassandratest.SuperUser, cassandratest.SuperPassword, n.Auth.Role)
		}
		if t := n.TLS; t != nil {
			fmt.Printf("  CQL over TLS only, certificate for %s (no IP): CA %s, client %s %s, require_client_auth %t\n",
				cassandratest.TLSServerName, t.CA, t.ClientCert, t.ClientKey, t.RequireClientAuth)
		}
		return 0, nil
	}
	if *dir == "" {
		return 2, fmt.Errorf("%s: -dir is required", verb)
	}
	if cassandratest.IsClusterDir(*dir) && (verb == "stop" || verb == "env") {
		c, err := cassandratest.AttachClusterDir(ctx, *dir, verb == "stop")
		if err != nil {
			return 1, err
		}
		if verb == "stop" {
			return 0, c.Stop()
		}
		for _, e := range c.Env() {
			fmt.Println("export " + e)
		}
		return 0, nil
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

// run starts a node (and, with copts, a cluster), runs one command with
// their variables in its environment (so every test package shares
// them), then stops them and checks that their pids are gone.
func run(ctx context.Context, opts cassandratest.Options, copts *cassandratest.ClusterOptions, argv []string) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("run: give a command after --")
	}
	n, err := cassandratest.Start(ctx, opts)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(os.Stderr, "cassandra-harness: cassandra %s (%s) pid %d on %s\n", cassandratest.Version, n.Mode, n.Pid, n.Addr())
	env := append(os.Environ(), n.Env()...)
	pids := []int{n.Pid}
	var c *cassandratest.Cluster
	if copts != nil {
		start := time.Now()
		if c, err = cassandratest.StartCluster(ctx, *copts); err != nil {
			return 1, errors.Join(err, n.Stop())
		}
		fmt.Fprintf(os.Stderr, "cassandra-harness: cluster of %d started in %s:\n%s", len(c.Nodes), time.Since(start).Round(time.Second), c.Describe())
		env = append(env, c.Env()...)
		for _, cn := range c.Nodes {
			pids = append(pids, cn.Pid)
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = env
	runErr := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit):
		code, runErr = exit.ExitCode(), nil
	case runErr != nil:
		code = 1
	}
	stopErr := n.Stop()
	if c != nil {
		stopErr = errors.Join(stopErr, c.Stop())
	}
	if stopErr != nil {
		return 1, errors.Join(runErr, stopErr)
	}
	for _, pid := range pids {
		if cassandratest.Alive(pid) {
			return 1, fmt.Errorf("cassandra pid %d still alive after stop", pid)
		}
	}
	return code, runErr
}
