package io.sstableflight.trino.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The committed oa corpus put into the harness's live Cassandra node, as a
 * keyspace of its own: each table is created from its schema.cql (the
 * keyspace renamed, its table id left to the node, its column drops
 * replayed with their timestamps) and its SSTables, the very files the
 * corpus holds, are imported (nodetool import, over JMX). Nothing is
 * rewritten through CQL, so TTLs, tombstones, static rows, counters and
 * dropped columns are the corpus' own, and the two catalogs of the
 * differential read one set of files: Trino's cassandra connector through
 * the node, sstable-flight from the node's data directory.
 *
 * Statements go through Trino's own cassandra catalog
 * ({@code CALL cassandra.system.execute}), so the suite needs no CQL
 * driver of its own.
 */
final class LiveCorpus
{
    private static final Pattern TABLE_ID = Pattern.compile("\\) WITH ID = [0-9a-f-]+\\s+AND ");
    private static final Pattern SSTABLE_COMPONENT = Pattern.compile("[a-z]{2}-\\d+-(big|bti)-\\w+\\.(db|txt|crc32)");

    private LiveCorpus() {}

    /** Creates {@code keyspace} and every corpus table of {@code modeDir} in it, with the corpus' SSTables. */
    static List<String> load(Connection trino, CassandraJmx jmx, Path modeDir, String keyspace, Path importDir)
            throws Exception
    {
        execute(trino, "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}".formatted(keyspace));
        List<String> tables = new ArrayList<>();
        for (Path dir : tableDirs(modeDir.resolve("corpus"))) {
            String table = dir.getFileName().toString().replaceFirst("-[0-9a-f]{32}$", "");
            for (String statement : statements(Files.readString(dir.resolve("schema.cql"), UTF_8))) {
                if (statement.startsWith("CREATE KEYSPACE")) {
                    continue;
                }
                String cql = statement.replace("corpus.", keyspace + ".");
                if (cql.startsWith("CREATE TYPE ")) {
                    cql = cql.replaceFirst("^CREATE TYPE ", "CREATE TYPE IF NOT EXISTS ");
                }
                // The node picks the table's id: the corpus' may be in use by another copy.
                cql = TABLE_ID.matcher(cql).replaceFirst(Matcher.quoteReplacement(") WITH "));
                // Dropping the keyspace at the end then leaves no snapshot in the node's data directory.
                cql = cql.replace("allow_auto_snapshot = true", "allow_auto_snapshot = false");
                execute(trino, cql);
            }
            Path files = Files.createDirectories(importDir.resolve(table));
            try (Stream<Path> components = Files.list(dir)) {
                for (Path component : components.filter(f -> SSTABLE_COMPONENT.matcher(f.getFileName().toString()).matches()).toList()) {
                    Files.copy(component, files.resolve(component.getFileName()));
                }
            }
            jmx.importSSTables(keyspace, table, files);
            tables.add(table);
        }
        return tables;
    }

    /** Drops the keyspace, then the directories Cassandra leaves of it, where they are empty. */
    static void drop(Connection trino, String keyspace, Path dataDir)
            throws SQLException, IOException
    {
        execute(trino, "DROP KEYSPACE IF EXISTS " + keyspace);
        removeEmptyDirectories(dataDir, keyspace);
    }

    /** Removes the directories a dropped keyspace leaves in a node's data directory, where they are empty (no snapshot in them). */
    static void removeEmptyDirectories(Path dataDir, String keyspace)
            throws IOException
    {
        Path dir = dataDir.resolve(keyspace);
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (Files.isDirectory(path)) {
                    try (Stream<Path> entries = Files.list(path)) {
                        if (entries.findAny().isEmpty()) {
                            Files.delete(path);
                        }
                    }
                }
            }
        }
    }

    private static List<Path> tableDirs(Path corpus)
            throws IOException
    {
        try (Stream<Path> dirs = Files.list(corpus)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("schema.cql"))).sorted().toList();
        }
    }

    /** The statements of a schema.cql: each ends with ';' at the end of a line. */
    private static List<String> statements(String schema)
    {
        List<String> statements = new ArrayList<>();
        for (String statement : schema.split(";\\s*\\n")) {
            String trimmed = statement.strip();
            if (trimmed.endsWith(";")) {
                trimmed = trimmed.substring(0, trimmed.length() - 1);
            }
            if (!trimmed.isEmpty()) {
                statements.add(trimmed);
            }
        }
        return statements;
    }

    private static void execute(Connection trino, String cql)
            throws SQLException
    {
        CqlThroughTrino.execute(trino, "cassandra", cql);
    }
}
