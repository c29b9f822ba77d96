package io.sstableflight.trino.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * What the integration suite runs against, started once per Maven run: one
 * sstable-flight server per corpus format (nb, oa, da) over the committed
 * corpus, one more over oa with TLS and a bearer token, and one real Trino
 * 476 on 127.0.0.1 with the plugin directory copied into its plugin folder
 * and a catalog per format (sstable_nb, sstable_oa, sstable_da) plus two on
 * the TLS server: sstable_tls (its CA and token) and sstable_tls_no_token.
 *
 * For the differential (DifferentialIT), the harness's live Cassandra node
 * (cassandra-harness run, which make trino-test wraps the suite in) gets
 * the oa corpus as keyspace {@link #liveKeyspace()} (LiveCorpus), Trino's
 * built-in connector reads it as catalog {@code cassandra}, and one more
 * server, over the node's data directory, serves it as {@code sstable_live}.
 *
 * Everything it starts is stopped by close(), which JUnit calls when the
 * run ends, failed or not, and by a shutdown hook; the live keyspace is
 * dropped first. Nothing here is optional: a missing binary, Trino,
 * plugin or Cassandra node fails the suite naming what to start or build
 * (make trino-test does all of it).
 */
public final class TestCluster
        implements AutoCloseable
{
    /**
     * The corpus formats, one server each: the Go harness's storage modes,
     * in its order. Their one list is internal/testkit/cassandratest/mode.go
     * ({@code go run ./cmd/cassandra-harness modes} prints it), and its
     * TestModeListsAgree fails when this one differs.
     */
    public static final List<String> MODES = List.of("nb", "oa", "da");
    /** The server with TLS and a token reads this mode's corpus. */
    public static final String TLS_MODE = "oa";
    /** The corpus the live node gets: its own format, so its SSTables import as they are. */
    public static final String LIVE_MODE = "oa";
    private static final String TOKEN = "sstable-flight-it-token-0123456789";

    private static TestCluster instance;

    private final Path workDir;
    private final Path corpusDir;
    private final List<ManagedProcess> processes = new ArrayList<>();
    private final Map<String, Integer> serverPorts = new LinkedHashMap<>();
    private int tlsPort;
    private int mtlsPort;
    private int trinoPort;
    private final LiveNode node;
    private final String liveKeyspace;
    private int livePort;
    private int killPort;
    private int flushPort;
    private List<String> liveTables = List.of();
    private boolean liveLoaded;
    private boolean liveStarted;
    private final List<ClusterNode> clusterNodes;
    private RingCluster ring;
    private Path binary;

    /** The one cluster of this JVM, started on first use. */
    public static synchronized TestCluster get()
    {
        if (instance == null) {
            TestCluster cluster = new TestCluster();
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "stop-test-cluster"));
            try {
                cluster.start();
            }
            catch (Exception e) {
                cluster.close();
                throw new IllegalStateException("start the test cluster: " + e.getMessage(), e);
            }
            instance = cluster;
        }
        return instance;
    }

    private TestCluster()
    {
        workDir = Path.of(requiredProperty("sstf.work.dir")).toAbsolutePath();
        corpusDir = requiredDirectory("sstf.corpus.dir", "the committed corpus (testdata/corpus)");
        node = LiveNode.fromEnvironment();
        clusterNodes = ClusterNode.fromEnvironment();
        // One keyspace per run: runs of other worktrees may share the node.
        liveKeyspace = Optional.ofNullable(System.getProperty("sstf.it.keyspace")).filter(k -> !k.isBlank()).orElse("trino_it_" + ProcessHandle.current().pid());
    }

    /** The port of catalog sstable_kill's one server, which ServerKillIT starts and kills. */
    public int killPort()
    {
        return killPort;
    }

    /** The port of catalog sstable_flush's one server (metadata kept for an hour), which FlushMetadataCacheIT starts. */
    public int flushPort()
    {
        return flushPort;
    }

    /** The keyspace holding the oa corpus in the live node, the same in catalogs cassandra and sstable_live. */
    public String liveKeyspace()
    {
        startLive();
        return liveKeyspace;
    }

    /** The corpus tables loaded into the live keyspace. */
    public List<String> liveTables()
    {
        startLive();
        return liveTables;
    }

    /** The harness's live Cassandra node (the differential's). */
    LiveNode node()
    {
        return node;
    }

    /** The three-node cluster with its keyspace written and a server beside each node (ClusterIT), started on first use. */
    synchronized RingCluster ring()
    {
        try (Connection connection = connect()) {
            ring.start(connection, this::startServer, workDir);
        }
        catch (Exception e) {
            throw new IllegalStateException("start the cluster's servers: " + e.getMessage(), e);
        }
        return ring;
    }

    /**
     * Starts one more server on 127.0.0.1 over {@code dataDir} for a test's
     * own use, with {@code flags} beyond the common ones; it is stopped with
     * the rest at the end of the run, or by the test.
     */
    synchronized ManagedProcess startServer(String name, Path dataDir, int port, List<String> flags)
            throws IOException, InterruptedException
    {
        ManagedProcess server = startServer(name, dataDir, "127.0.0.1", port, flags);
        awaitPort(server, "127.0.0.1", port, 60);
        return server;
    }

    /**
     * Imports the oa corpus into the live node and starts the server over
     * its data directory, once, on first use (DifferentialIT): the import
     * is most of the suite's start, and a run of other suites (it.test)
     * needs neither.
     */
    private synchronized void startLive()
    {
        if (liveStarted) {
            return;
        }
        long loadStart = System.nanoTime();
        try (Connection connection = connect(); CassandraJmx jmx = new CassandraJmx(node.jmxPort())) {
            liveLoaded = true;
            liveTables = LiveCorpus.load(connection, jmx, modeDir(LIVE_MODE), liveKeyspace, workDir.resolve("import"));
            System.err.printf("TestCluster: %d corpus tables in keyspace %s of the node on port %d, in %.1f s%n", liveTables.size(), liveKeyspace, node.cqlPort(), (System.nanoTime() - loadStart) / 1e9);
            // Hard-link snapshots (the default mode) keep each query's files whatever the node compacts meanwhile.
            startServer("live", node.dataDir(), livePort, List.of("--cassandra", "127.0.0.1:" + node.cqlPort()));
        }
        catch (Exception e) {
            throw new IllegalStateException("load the oa corpus into the live node: " + e.getMessage(), e);
        }
        liveStarted = true;
    }

    public Path corpusDir()
    {
        return corpusDir;
    }

    public Path modeDir(String mode)
    {
        return corpusDir.resolve(mode);
    }

    /** The Flight address of the server over a mode's corpus. */
    public String serverUri(String mode)
    {
        return "grpc://127.0.0.1:" + serverPorts.get(mode);
    }

    public Connection connect()
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", "it");
        return DriverManager.getConnection("jdbc:trino://127.0.0.1:" + trinoPort, properties);
    }

    private void start()
            throws Exception
    {
        binary = Path.of(requiredProperty("sstf.server.binary"));
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("sstf.server.binary " + binary + " is not an executable: run make trino-test (it builds build/sstable-flight)");
        }
        Path trinoHome = requiredDirectory("sstf.trino.home", "Trino 476 (deploy/local/install-trino.sh)");
        Path pluginDir = requiredDirectory("sstf.plugin.dir", "the plugin directory (make trino-plugin)");
        if (!Files.isRegularFile(trinoHome.resolve("bin/launcher"))) {
            throw new IllegalStateException(trinoHome + " has no bin/launcher: run deploy/local/install-trino.sh");
        }
        deleteRecursively(workDir);
        Files.createDirectories(workDir);

        Map<ManagedProcess, Integer> servers = new LinkedHashMap<>();
        for (String mode : MODES) {
            int port = freePort();
            servers.put(startServer(mode, modeDir(mode), "127.0.0.1", port, List.of()), port);
            serverPorts.put(mode, port);
        }
        TlsMaterial tls = TlsMaterial.create(workDir.resolve("tls"));
        Path tokenFile = Files.writeString(workDir.resolve("tls/token"), TOKEN + "\n", UTF_8);
        tlsPort = freePort();
        servers.put(startServer("tls", modeDir(TLS_MODE), "127.0.0.1", tlsPort, List.of(
                "--tls-cert", tls.certificate().toString(),
                "--tls-key", tls.key().toString(),
                "--auth-token-file", tokenFile.toString())), tlsPort);
        ClientTls clients = ClientTls.create(workDir.resolve("tls/clients"));
        mtlsPort = freePort();
        servers.put(startServer("mtls", modeDir(TLS_MODE), "127.0.0.1", mtlsPort, List.of(
                "--tls-cert", tls.certificate().toString(),
                "--tls-key", tls.key().toString(),
                "--tls-client-ca", clients.ca().toString())), mtlsPort);
        for (Map.Entry<ManagedProcess, Integer> server : servers.entrySet()) {
            awaitPort(server.getKey(), "127.0.0.1", server.getValue(), 60);
        }

        livePort = freePort();
        killPort = freePort();
        flushPort = freePort();
        trinoPort = freePort();
        ring = new RingCluster(clusterNodes, "trino_it_ring_" + ProcessHandle.current().pid());
        Path trinoDir = Files.createDirectories(workDir.resolve("trino"));
        Path etc = Files.createDirectories(trinoDir.resolve("etc"));
        Path catalogs = Files.createDirectories(etc.resolve("catalog"));
        Path plugins = Files.createDirectories(trinoDir.resolve("plugin"));
        copyDirectory(pluginDir, plugins.resolve("sstable-flight"));
        // Trino's own cassandra connector, for the differential: a link, its jars are Trino's.
        Files.createSymbolicLink(plugins.resolve("cassandra"), trinoHome.resolve("plugin/cassandra"));
        Path data = Files.createDirectories(trinoDir.resolve("data"));
        Files.writeString(etc.resolve("node.properties"), """
                node.environment=it
                node.id=sstable-flight-it
                node.data-dir=%s
                """.formatted(data), UTF_8);
        // A small heap and the serial collector: this runs beside other work on two cores.
        Files.writeString(etc.resolve("jvm.config"), """
                -server
                -Xmx1G
                -XX:+UseSerialGC
                -XX:+ExitOnOutOfMemoryError
                -XX:-OmitStackTraceInFastThrow
                -Djdk.attach.allowAttachSelf=true
                -Dfile.encoding=UTF-8
                --add-opens=java.base/java.nio=ALL-UNNAMED
                --sun-misc-unsafe-memory-access=allow
                """, UTF_8);
        Files.writeString(etc.resolve("config.properties"), """
                coordinator=true
                node-scheduler.include-coordinator=true
                http-server.http.port=%d
                discovery.uri=http://127.0.0.1:%d
                plugin.dir=%s
                query.max-memory=512MB
                query.max-memory-per-node=512MB
                task.concurrency=2
                """.formatted(trinoPort, trinoPort, plugins), UTF_8);
        Files.writeString(etc.resolve("log.properties"), "io.trino=INFO\n", UTF_8);
        for (Map.Entry<String, Integer> server : serverPorts.entrySet()) {
            flightCatalog(catalogs, "sstable_" + server.getKey(), "grpc://127.0.0.1:" + server.getValue());
        }
        // DecimalMappingIT's: the oa corpus with decimals as DECIMAL(38, 8) rounded half up, and as DECIMAL(38, 10) that may not round.
        flightCatalog(catalogs, "sstable_oa_decimal", "grpc://127.0.0.1:" + serverPorts.get("oa"),
                "sstable-flight.decimal-mapping=DECIMAL", "sstable-flight.decimal-scale=8", "sstable-flight.decimal-rounding-mode=HALF_UP");
        flightCatalog(catalogs, "sstable_oa_decimal_exact", "grpc://127.0.0.1:" + serverPorts.get("oa"), "sstable-flight.decimal-mapping=DECIMAL");
        String tlsUri = "grpc+tls://127.0.0.1:" + tlsPort;
        String mtlsUri = "grpc+tls://127.0.0.1:" + mtlsPort;
        String ca = "sstable-flight.tls.ca-file=" + tls.certificate();
        flightCatalog(catalogs, "sstable_tls", tlsUri, ca, "sstable-flight.token-file=" + tokenFile);
        flightCatalog(catalogs, "sstable_tls_no_token", tlsUri, ca);
        // The mTLS server's catalogs: its client certificate, none, and one of a CA it does not trust.
        flightCatalog(catalogs, "sstable_mtls", mtlsUri, ca, "sstable-flight.tls.cert-file=" + clients.certificate(), "sstable-flight.tls.key-file=" + clients.key());
        flightCatalog(catalogs, "sstable_mtls_no_cert", mtlsUri, ca);
        flightCatalog(catalogs, "sstable_mtls_wrong_ca", mtlsUri, ca, "sstable-flight.tls.cert-file=" + clients.rogueCertificate(), "sstable-flight.tls.key-file=" + clients.rogueKey());
        // The differential's two catalogs of the live node: Trino's own connector, and ours through a server over its data directory.
        // ServerKillIT writes 10 kB rows through it: four a batch stay under Cassandra's 50 kB batch_size_fail_threshold.
        Files.writeString(catalogs.resolve("cassandra.properties"), """
                connector.name=cassandra
                cassandra.contact-points=127.0.0.1
                cassandra.native-protocol-port=%d
                cassandra.load-policy.dc-aware.local-dc=datacenter1
                cassandra.batch-size=4
                """.formatted(node.cqlPort()), UTF_8);
        flightCatalog(catalogs, "sstable_live", "grpc://127.0.0.1:" + livePort);
        // ServerKillIT's: nothing listens on its port until that test starts a server there, and kills it.
        flightCatalog(catalogs, "sstable_kill", "grpc://127.0.0.1:" + killPort);
        // FlushMetadataCacheIT's: its listing and stats kept for an hour, so only the procedure shows a change.
        flightCatalog(catalogs, "sstable_flush", "grpc://127.0.0.1:" + flushPort, "sstable-flight.metadata-cache-ttl=1h");
        ring.writeCatalogs(catalogs);
        // Trino 476 needs Java 24+: the JVM running this suite is the one deploy/local/java25.sh chose.
        String javaHome = System.getProperty("java.home");
        ManagedProcess trino = ManagedProcess.start("trino", List.of(
                trinoHome.resolve("bin/launcher").toString(), "run",
                "--etc-dir=" + etc,
                "--data-dir=" + data), Map.of(
                "JAVA_HOME", javaHome,
                "PATH", javaHome + "/bin:" + System.getenv("PATH")), workDir);
        processes.add(trino);
        awaitTrino(trino, 240);
    }

    private ManagedProcess startServer(String name, Path dataDir, String host, int port, List<String> flags)
            throws IOException
    {
        Path snapshots = Files.createDirectories(workDir.resolve("snapshots-" + name));
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--data-dir", dataDir.toString(),
                "--snapshot-dir", snapshots.toString(),
                "--listen", host + ":" + port,
                "--admin-listen", "",
                "--drain-timeout", "2s"));
        command.addAll(flags);
        ManagedProcess server = ManagedProcess.start("sstable-flight-" + name, command, Map.of(), workDir);
        processes.add(server);
        return server;
    }

    private void awaitTrino(ManagedProcess trino, int seconds)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!trino.isAlive()) {
                throw new IllegalStateException("Trino exited during start; its log (" + trino.log() + ") ends:\n" + trino.tail());
            }
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                statement.execute("SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'");
                return;
            }
            catch (SQLException e) {
                last = e;
            }
            Thread.sleep(1000);
        }
        throw new IllegalStateException("Trino did not answer within %d s (%s); its log ends:\n%s".formatted(seconds, last, trino.tail()));
    }

    static void awaitPort(ManagedProcess process, String host, int port, int seconds)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " exited during start; its log ends:\n" + process.tail());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 500);
                return;
            }
            catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException(process.name() + " did not listen on " + host + ":" + port + " within " + seconds + " s; its log ends:\n" + process.tail());
    }

    @Override
    public synchronized void close()
    {
        if (ring != null) {
            try (Connection connection = connect()) {
                ring.drop(connection);
            }
            catch (SQLException | IOException e) {
                System.err.printf("TestCluster: drop keyspace %s of the cluster: %s%n", ring.keyspace(), e.getMessage());
            }
        }
        if (liveLoaded) {
            liveLoaded = false;
            try (Connection connection = connect()) {
                LiveCorpus.drop(connection, liveKeyspace, node.dataDir());
            }
            catch (SQLException | IOException e) {
                System.err.printf("TestCluster: drop keyspace %s of the live node: %s%n", liveKeyspace, e.getMessage());
            }
        }
        // Trino first: it holds streams of the servers.
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).close();
        }
        processes.clear();
    }

    static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Writes catalog {@code name} of this connector: its seed URI, then {@code properties} (key=value), one a line. */
    static void flightCatalog(Path catalogs, String name, String uri, String... properties)
            throws IOException
    {
        StringBuilder file = new StringBuilder("connector.name=sstable_flight\nsstable-flight.uri=").append(uri).append('\n');
        for (String property : properties) {
            file.append(property).append('\n');
        }
        Files.writeString(catalogs.resolve(name + ".properties"), file, UTF_8);
    }

    private static String requiredProperty(String name)
    {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set: run the suite with make trino-test (deploy/local/trino-test.sh)");
        }
        return value;
    }

    private static Path requiredDirectory(String property, String what)
    {
        Path path = Path.of(requiredProperty(property)).toAbsolutePath();
        if (!Files.isDirectory(path)) {
            throw new IllegalStateException(property + " " + path + " is not a directory: it should hold " + what);
        }
        return path;
    }

    private static void copyDirectory(Path from, Path to)
            throws IOException
    {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void deleteRecursively(Path path)
            throws IOException
    {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
