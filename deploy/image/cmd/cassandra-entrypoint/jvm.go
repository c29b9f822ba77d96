package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
	"github.com/sstable-flight/sstable-flight/internal/cassandrajvm"
)

// The JVM's command lines: what bin/cassandra, cassandra-env.sh,
// jvm-server.options and jvm17-server.options of Cassandra 5.0 give the
// daemon on JDK 17, and what bin/nodetool gives NodeTool.

// serverOptions are jvm-server.options' flags that apply to JDK 17
// (-XX:-UseBiasedLocking is gone from it: JDK 17 deprecates the flag).
var serverOptions = []string{
	"-ea",
	"-da:net.openhft...",
	"-XX:+UseThreadPriorities",
	"-XX:+HeapDumpOnOutOfMemoryError",
	"-Xss256k",
	"-XX:+AlwaysPreTouch",
	"-XX:+UseTLAB",
	"-XX:+ResizeTLAB",
	"-XX:+UseNUMA",
	"-XX:+PerfDisableSharedMem",
	"-Djava.net.preferIPv4Stack=true",
}

// g1Options are jvm17-server.options' garbage collector settings.
var g1Options = []string{
	"-XX:+UseG1GC",
	"-XX:+ParallelRefProcEnabled",
	"-XX:MaxTenuringThreshold=1",
	"-XX:G1HeapRegionSize=16m",
	"-XX:G1RSetUpdatingPauseTimePercent=5",
	"-XX:MaxGCPauseMillis=300",
	"-XX:InitiatingHeapOccupancyPercent=70",
}

// nettyOptions are jvm17-server.options' Netty properties: direct
// buffers through Unsafe, and the allocator's pre-4.1.75 defaults.
var nettyOptions = []string{
	"-Dio.netty.tryReflectionSetAccessible=true",
	"-Dio.netty.allocator.useCacheForAllThreads=true",
	"-Dio.netty.allocator.maxOrder=11",
}

// nodetoolHeap is bin/nodetool's heap when MAX_HEAP_SIZE is unset.
const nodetoolHeap = "128m"

// daemonArgv is java's argv for CassandraDaemon with heap, the jars,
// JVM_EXTRA_OPTS' words and the -D flags given to the entrypoint.
func daemonArgv(heap string, jars []string, extraOpts, flags []string) []string {
	conf := confDir()
	argv := []string{javaPath()}
	argv = append(argv, serverOptions...)
	argv = append(argv, g1Options...)
	argv = append(argv, cassandrajvm.JDK17Modules()...)
	argv = append(argv, nettyOptions...)
	argv = append(argv,
		"-Xms"+heap, "-Xmx"+heap,
		// cassandra-env.sh kills the JVM on OutOfMemoryError with a
		// shell command; there is no shell here, and this is the same.
		"-XX:+ExitOnOutOfMemoryError",
		"-XX:HeapDumpPath="+cassandra.Data,
		"-Dcassandra.jmx.local.port="+strconv.Itoa(cassandra.JMXPort),
		"-Dcom.sun.management.jmxremote.authenticate=false",
		"-Dcassandra.logdir="+cassandra.Logs,
		"-Dcassandra.storagedir="+cassandra.Data,
		"-Dcassandra-foreground=yes",
		"-Dcassandra.config=file://"+filepath.Join(conf, cassandra.YAMLFile),
		"-D"+cassandra.RackDCFile+"=file://"+filepath.Join(conf, cassandra.RackDCFile),
		"-Dlogback.configurationFile=file://"+filepath.Join(conf, cassandra.LogbackFile),
	)
	argv = append(argv, extraOpts...)
	argv = append(argv, flags...)
	return append(argv, "-cp", classpath(conf, jars), "org.apache.cassandra.service.CassandraDaemon")
}

// nodetoolArgv is java's argv for NodeTool with args, as bin/nodetool
// builds it: -D arguments go to the JVM, and the JMX port is the local
// one unless -p or --port says otherwise (NodeTool's host defaults to
// 127.0.0.1, where the daemon's local JMX listens).
func nodetoolArgv(heap string, jars, args []string) []string {
	conf := confDir()
	argv := []string{javaPath(), "-ea"}
	argv = append(argv, cassandrajvm.JDK17Modules()...)
	argv = append(argv, "-Xmx"+heap, "-XX:ParallelGCThreads=1",
		"-Dcassandra.storagedir="+cassandra.Data,
		"-Dlogback.configurationFile=file://"+filepath.Join(conf, cassandra.LogbackToolsFile))
	var tool []string
	for _, a := range args {
		if strings.HasPrefix(a, "-D") {
			argv = append(argv, a)
		} else {
			tool = append(tool, a)
		}
	}
	argv = append(argv, "-cp", classpath(conf, jars), "org.apache.cassandra.tools.NodeTool")
	if !slices.ContainsFunc(tool, func(a string) bool {
		return a == "-p" || a == "--port" || strings.HasPrefix(a, "--port=")
	}) {
		argv = append(argv, "-p", strconv.Itoa(cassandra.JMXPort))
	}
	return append(argv, tool...)
}

// daemonEnv is the daemon's environment: cassandra-env.sh caps glibc's
// malloc arenas unless told otherwise.
func daemonEnv(env []string) []string {
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "MALLOC_ARENA_MAX=") }) {
		env = append(env, "MALLOC_ARENA_MAX=4")
	}
	return env
}

// classpath is bin/cassandra's: the configuration directory first (so
// resources such as logback.xml resolve there), then the jars.
func classpath(conf string, jars []string) string {
	return strings.Join(append([]string{conf}, jars...), ":")
}

// jarClasspath lists $CASSANDRA_HOME/lib/*.jar in name order, as
// bin/cassandra's glob does.
func jarClasspath() ([]string, error) {
	dir := filepath.Join(envOr("CASSANDRA_HOME", cassandra.Home), "lib")
	jars, err := filepath.Glob(filepath.Join(dir, "*.jar"))
	if err != nil || len(jars) == 0 {
		return nil, fmt.Errorf("no jars in %s (%v)", dir, err)
	}
	slices.Sort(jars)
	return jars, nil
}

// confDir and javaPath honour CASSANDRA_CONF and JAVA_HOME, as the
// official scripts do.
func confDir() string  { return envOr("CASSANDRA_CONF", cassandra.Conf) }
func javaPath() string { return filepath.Join(envOr("JAVA_HOME", cassandra.JavaHome), "bin", "java") }

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
