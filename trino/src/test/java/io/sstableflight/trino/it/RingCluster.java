package io.sstableflight.trino.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The harness's three-node cluster as ClusterIT reads it: keyspace
 * {@link #keyspace()} at RF 2 written through CQL at consistency ALL (Trino's
 * cassandra connector, catalog {@value #CQL_CATALOG}, reads and writes at
 * ALL) and flushed on every node, and one sstable-flight beside each node
 * (--cassandra that node, --peers naming all three, its own data directory,
 * one shared ticket key), the catalog {@value #CATALOG} pointing at the
 * first server only. The catalogs are written before Trino starts; the
 * keyspace and the servers come on first use (ClusterIT), so a run of
 * other suites pays for neither.
 */
final class RingCluster
{
    static final String CATALOG = "sstable_cluster";
    static final String CQL_CATALOG = "cassandra_cluster";
    static final String TABLE = "kv";
    /** Enough partitions that every node's 16 tokens own some, few enough to write in seconds. */
    static final int ROWS = 3000;

    private final List<ClusterNode> nodes;
    private final String keyspace;
    private final List<Integer> flightPorts = new ArrayList<>();
    private final List<Integer> adminPorts = new ArrayList<>();
    private final List<ManagedProcess> servers = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private boolean loaded;
    private boolean started;

    RingCluster(List<ClusterNode> nodes, String keyspace)
            throws IOException
    {
        this.nodes = nodes;
        this.keyspace = keyspace;
        for (ClusterNode node : nodes) {
            flightPorts.add(freePort(node.address()));
            adminPorts.add(freePort(node.address()));
        }
    }

    List<ClusterNode> nodes()
    {
        return nodes;
    }

    String keyspace()
    {
        return keyspace;
    }

    /** The Flight address of the server beside node {@code i}. */
    String serverUri(int i)
    {
        return "grpc://%s:%d".formatted(nodes.get(i).address(), flightPorts.get(i));
    }

    /** Writes the two catalogs of the cluster into Trino's catalog directory. */
    void writeCatalogs(Path catalogs)
            throws IOException
    {
        TestCluster.flightCatalog(catalogs, CATALOG, serverUri(0));
        ClusterNode first = nodes.getFirst();
        Files.writeString(catalogs.resolve(CQL_CATALOG + ".properties"), """
                connector.name=cassandra
                cassandra.contact-points=%s
                cassandra.native-protocol-port=%d
                cassandra.load-policy.dc-aware.local-dc=%s
                cassandra.consistency-level=ALL
                """.formatted(first.address(), first.cqlPort(), first.dc()), UTF_8);
    }

    /**
     * Writes the keyspace and starts the three servers, once: the keyspace
     * first, so each server's first look at the ring and the schema already
     * holds it.
     */
    synchronized void start(Connection trino, ServerStarter starter, Path workDir)
            throws Exception
    {
        if (started) {
            return;
        }
        loaded = true;
        execute(trino, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}".formatted(keyspace));
        execute(trino, "CREATE TABLE %s.%s (k int PRIMARY KEY, v text) WITH allow_auto_snapshot = false".formatted(keyspace, TABLE));
        CqlThroughTrino.insert(trino, "INSERT INTO %s.%s.%s (k, v) SELECT CAST(x AS integer), 'v' || CAST(x AS varchar) FROM UNNEST(sequence(0, %d)) AS t(x)"
                .formatted(CQL_CATALOG, keyspace, TABLE, ROWS - 1));
        for (ClusterNode node : nodes) {
            try (CassandraJmx jmx = new CassandraJmx(node.jmxPort())) {
                jmx.flush(keyspace);
            }
        }
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Path keyFile = Files.writeString(workDir.resolve("ring-ticket.key"), HexFormat.of().formatHex(key) + "\n", UTF_8);
        String peers = java.util.stream.IntStream.range(0, nodes.size())
                .mapToObj(i -> nodes.get(i).address() + "=" + serverUri(i))
                .collect(Collectors.joining(","));
        for (int i = 0; i < nodes.size(); i++) {
            ClusterNode node = nodes.get(i);
            servers.add(starter.start("ring-" + (i + 1), node.dataDir(), node.address(), flightPorts.get(i), List.of(
                    "--admin-listen", node.address() + ":" + adminPorts.get(i),
                    "--cassandra", node.address() + ":" + node.cqlPort(),
                    "--peers", peers,
                    "--ticket-key-file", keyFile.toString())));
        }
        for (int i = 0; i < nodes.size(); i++) {
            TestCluster.awaitPort(servers.get(i), nodes.get(i).address(), flightPorts.get(i), 60);
        }
        started = true;
    }

    /** Stops the server beside node {@code i} (SIGTERM), as an operator or a crash would. */
    void stopServer(int i)
    {
        servers.get(i).close();
    }

    /** Counter {@code name} of server {@code i}'s /metrics, summed over the series whose labels include every one of {@code labels}. */
    double metric(int i, String name, String... labels)
            throws IOException, InterruptedException
    {
        URI uri = URI.create("http://%s:%d/metrics".formatted(nodes.get(i).address(), adminPorts.get(i)));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET %s: status %d: %s".formatted(uri, response.statusCode(), response.body()));
        }
        double sum = 0;
        for (String line : response.body().split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            String series = line.substring(0, line.lastIndexOf(' '));
            if (List.of(labels).stream().allMatch(series::contains)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** Drops the keyspace, if this run wrote it, and the empty directories it leaves on each node. */
    synchronized void drop(Connection trino)
            throws SQLException, IOException
    {
        if (loaded) {
            loaded = false;
            execute(trino, "DROP KEYSPACE IF EXISTS " + keyspace);
            for (ClusterNode node : nodes) {
                LiveCorpus.removeEmptyDirectories(node.dataDir(), keyspace);
            }
        }
    }

    private static void execute(Connection trino, String cql)
            throws SQLException
    {
        CqlThroughTrino.execute(trino, CQL_CATALOG, cql);
    }

    private static int freePort(String address)
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(address))) {
            return socket.getLocalPort();
        }
    }

    /** How TestCluster starts a server: its name, data directory, listen address and port, and flags beyond the common ones. */
    @FunctionalInterface
    interface ServerStarter
    {
        ManagedProcess start(String name, Path dataDir, String host, int port, List<String> flags)
                throws IOException;
    }
}
