package io.sstableflight.trino.it;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Cassandra's own operations on the harness's node over its local JMX port
 * (no authentication, as internal/testkit/cassandratest configures it), through
 * the JDK's JMX client: what nodetool import does, without nodetool.
 */
final class CassandraJmx
        implements AutoCloseable
{
    private final JMXConnector connector;
    private final MBeanServerConnection server;

    CassandraJmx(int port)
            throws IOException
    {
        connector = JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:%d/jmxrmi".formatted(port)));
        server = connector.getMBeanServerConnection();
    }

    /**
     * Moves the SSTables of {@code dir} into a live table (nodetool import):
     * Cassandra verifies them, renumbers their generations and serves them.
     */
    void importSSTables(String keyspace, String table, Path dir)
            throws Exception
    {
        ObjectName name = new ObjectName("org.apache.cassandra.db:type=Tables,keyspace=%s,table=%s".formatted(keyspace, table));
        // resetLevel, clearRepaired, verifySSTables, verifyTokens, invalidateCaches, extendedVerify, copyData
        Object[] arguments = {new HashSet<>(Set.of(dir.toString())), false, false, true, true, true, false, false};
        String[] signature = {Set.class.getName(), "boolean", "boolean", "boolean", "boolean", "boolean", "boolean", "boolean"};
        @SuppressWarnings("unchecked")
        List<String> failed = (List<String>) server.invoke(name, "importNewSSTables", arguments, signature);
        if (!failed.isEmpty()) {
            throw new IllegalStateException("import SSTables of %s into %s.%s: Cassandra refused %s".formatted(dir, keyspace, table, failed));
        }
    }

    /** Writes the keyspace's memtables to SSTables (nodetool flush), so a server over the data directory reads what CQL wrote. */
    void flush(String keyspace)
            throws Exception
    {
        ObjectName name = new ObjectName("org.apache.cassandra.db:type=StorageService");
        server.invoke(name, "forceKeyspaceFlush", new Object[] {keyspace, new String[0]}, new String[] {String.class.getName(), String[].class.getName()});
    }

    @Override
    public void close()
            throws IOException
    {
        connector.close();
    }
}
