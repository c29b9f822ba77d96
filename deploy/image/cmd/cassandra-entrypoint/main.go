// Command cassandra-entrypoint is the ENTRYPOINT of the test Cassandra
// image (deploy/image, `go run . cassandra`): a static binary in place of
// the official image's docker-entrypoint.sh, bin/cassandra and
// bin/nodetool, as the image has no shell.
//
//	cassandra-entrypoint [cassandra [-f] [-R] [-Dprop=value...]]
//	    rewrite /etc/cassandra from CASSANDRA_* variables, exec the daemon
//	cassandra-entrypoint nodetool ARGS...   (or invoked as nodetool)
//	    exec Cassandra's NodeTool against the local JMX port
//	cassandra-entrypoint COMMAND ARGS...
//	    exec COMMAND from PATH (java -version, say)
//
// The variables are the official image's: CASSANDRA_LISTEN_ADDRESS
// ("auto", the default, is the first non-loopback IPv4 address),
// CASSANDRA_BROADCAST_ADDRESS, CASSANDRA_RPC_ADDRESS (default 0.0.0.0),
// CASSANDRA_BROADCAST_RPC_ADDRESS, CASSANDRA_SEEDS (default the broadcast
// address), CASSANDRA_CLUSTER_NAME, CASSANDRA_NUM_TOKENS,
// CASSANDRA_ENDPOINT_SNITCH, CASSANDRA_DC and CASSANDRA_RACK (into
// cassandra-rackdc.properties); and cassandra-env.sh's MAX_HEAP_SIZE,
// HEAP_NEWSIZE and JVM_EXTRA_OPTS. docs/image.md has the details.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	if err := run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "cassandra-entrypoint:", err)
		os.Exit(1)
	}
}

// run dispatches on the name it was invoked by and its first argument,
// as docker-entrypoint.sh does: no argument or a first one starting with
// a dash means the daemon. On success it does not return: the process
// becomes java (or the command).
func run(argv []string) error {
	if filepath.Base(argv[0]) == "nodetool" {
		return execNodetool(argv[1:])
	}
	args := argv[1:]
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		args = append([]string{"cassandra", "-f"}, args...)
	}
	switch args[0] {
	case "cassandra":
		return startCassandra(args[1:])
	case "nodetool":
		return execNodetool(args[1:])
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return fmt.Errorf("run %q: %w", args[0], err)
	}
	return execve(path, args, os.Environ())
}

// startCassandra writes the configuration from the environment and
// replaces this process with CassandraDaemon.
func startCassandra(args []string) error {
	flags, err := parseDaemonArgs(args)
	if err != nil {
		return err
	}
	if (os.Getuid() == 0 || os.Getgid() == 0) && !flags.allowRoot {
		// bin/cassandra's rule; the official image steps down with
		// gosu instead, which needs capabilities this image's
		// securityContext drops.
		return errors.New("refusing to run Cassandra as root: run the image as its user (999:999), or pass -R")
	}
	s, err := readSettings(os.LookupEnv, ownIPv4)
	if err != nil {
		return err
	}
	if err := seedConf(confDir()); err != nil {
		return err
	}
	if err := s.writeConfig(confDir()); err != nil {
		return err
	}
	jars, err := jarClasspath()
	if err != nil {
		return err
	}
	heap, err := heapSize(os.LookupEnv, memoryLimitMB)
	if err != nil {
		return err
	}
	argv := daemonArgv(heap, jars, strings.Fields(os.Getenv("JVM_EXTRA_OPTS")), flags.jvm)
	fmt.Fprintf(os.Stderr, "cassandra-entrypoint: %s; heap %s; exec %s\n", s, heap, javaPath())
	return execve(javaPath(), argv, daemonEnv(os.Environ()))
}

// execNodetool replaces this process with NodeTool.
func execNodetool(args []string) error {
	jars, err := jarClasspath()
	if err != nil {
		return err
	}
	heap := os.Getenv("MAX_HEAP_SIZE")
	if heap == "" {
		heap = nodetoolHeap
	}
	return execve(javaPath(), nodetoolArgv(heap, jars, args), os.Environ())
}

// execve replaces this process; it returns only on failure.
func execve(path string, argv, env []string) error {
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}
