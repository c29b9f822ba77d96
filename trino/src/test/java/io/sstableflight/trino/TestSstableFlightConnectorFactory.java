package io.sstableflight.trino;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorPageSourceProvider;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorSplitManager;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.type.StandardTypes;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeId;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeOperators;
import io.trino.spi.type.TypeSignature;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.transaction.IsolationLevel.READ_UNCOMMITTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The connector as Trino builds it: through the factory, with a context
 * of the SPI version, type manager and telemetry the engine hands a
 * catalog, over a Flight server in the JVM that lists a changing set of
 * tables and counts its listings. The plugin refuses another SPI version;
 * what the engine calls is class-loader safe; the catalog's procedure
 * flush_metadata_cache drops the kept listing, so a dropped table is gone
 * at once; the metadata cache's counters are an MBean named for the
 * catalog, gone when the catalog shuts down.
 */
class TestSstableFlightConnectorFactory
{
    private static final String CATALOG = "ops_factory_test";
    // The calls under test read no session property.
    private static final ConnectorSession SESSION = null;

    private CatalogFlightServer server;

    @TempDir
    Path dir;

    @BeforeEach
    void start()
            throws Exception
    {
        server = new CatalogFlightServer();
        server.serve("ks", "a", ScriptedFlightServers.SCHEMA);
    }

    @AfterEach
    void stop()
            throws Exception
    {
        server.close();
    }

    private Map<String, String> catalog()
    {
        return Map.of("sstable-flight.uri", server.uri(), "sstable-flight.metadata-cache-ttl", "1h");
    }

    @Test
    void aTrinoOfAnotherSpiVersionIsRefused()
    {
        assertThatThrownBy(() -> new SstableFlightConnectorFactory().create(CATALOG, catalog(), context("475")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Trino SPI version 475 does not match the version 476 connector sstable_flight was compiled for");
    }

    @Test
    void bothTokenSourcesAreRefused()
            throws Exception
    {
        Path token = Files.writeString(dir.resolve("token"), "t");
        assertThatThrownBy(() -> new SstableFlightConnectorFactory().create(CATALOG, Map.of(
                "sstable-flight.uri", "grpc://127.0.0.1:1",
                "sstable-flight.token", "t",
                "sstable-flight.token-file", token.toString()), context("476")))
                .hasMessageContaining("sstable-flight.token and sstable-flight.token-file: give one, not both");
    }

    @Test
    void flushMetadataCacheDropsTheKeptListing()
            throws Throwable
    {
        Connector connector = new SstableFlightConnectorFactory().create(CATALOG, catalog(), context("476"));
        try {
            assertThat(connector.getProcedures()).singleElement().satisfies(procedure -> {
                assertThat(procedure.getSchema()).isEqualTo("system");
                assertThat(procedure.getName()).isEqualTo("flush_metadata_cache");
                assertThat(procedure.getArguments()).isEmpty();
            });
            Procedure flush = connector.getProcedures().iterator().next();

            assertThat(tables(connector)).containsExactly(new SchemaTableName("ks", "a"));
            server.drop("ks", "a");
            server.serve("ks", "b", ScriptedFlightServers.SCHEMA);
            // The listing is kept for the TTL (1h): "a" was dropped, but the catalog still lists it.
            assertThat(tables(connector)).containsExactly(new SchemaTableName("ks", "a"));
            assertThat(server.listings).hasValue(1);

            // As the engine calls it: the method handle, bound, with no argument.
            flush.getMethodHandle().invoke();
            assertThat(tables(connector)).containsExactly(new SchemaTableName("ks", "b"));
            assertThat(server.listings).hasValue(2);
        }
        finally {
            connector.shutdown();
        }
    }

    @Test
    void whatTheEngineCallsIsClassLoaderSafe()
    {
        Connector connector = new SstableFlightConnectorFactory().create(CATALOG, catalog(), context("476"));
        try {
            assertThat(connector.getMetadata(SESSION, connector.beginTransaction(READ_UNCOMMITTED, true, true))).isInstanceOf(ClassLoaderSafeConnectorMetadata.class);
            assertThat(connector.getSplitManager()).isInstanceOf(ClassLoaderSafeConnectorSplitManager.class);
            assertThat(connector.getPageSourceProvider()).isInstanceOf(ClassLoaderSafeConnectorPageSourceProvider.class);
        }
        finally {
            connector.shutdown();
        }
    }

    @Test
    void theMetadataCacheCountsAreAnMBeanOfTheCatalog()
            throws Exception
    {
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("trino.plugin.sstableflight:type=MetadataCacheStats,name=" + CATALOG);
        Connector connector = new SstableFlightConnectorFactory().create(CATALOG, catalog(), context("476"));
        try {
            assertThat(mbeans.isRegistered(name)).as("%s registered", name).isTrue();
            tables(connector);
            assertThat(mbeans.getAttribute(name, "ListingLoads")).isEqualTo(1L);
            long hits = (Long) mbeans.getAttribute(name, "ListingHits");
            tables(connector);
            assertThat(mbeans.getAttribute(name, "ListingLoads")).as("the second query's listing was kept").isEqualTo(1L);
            assertThat((Long) mbeans.getAttribute(name, "ListingHits")).isGreaterThan(hits);
            assertThat(mbeans.getAttribute(name, "ListingLoadFailures")).isEqualTo(0L);
            assertThat(mbeans.getAttribute(name, "TableStatsLoads")).isEqualTo(0L);
        }
        finally {
            connector.shutdown();
        }
        assertThat(mbeans.isRegistered(name)).as("%s unregistered at shutdown", name).isFalse();
    }

    private static List<SchemaTableName> tables(Connector connector)
    {
        ConnectorMetadata metadata = connector.getMetadata(SESSION, connector.beginTransaction(READ_UNCOMMITTED, true, true));
        return metadata.listTables(SESSION, Optional.empty());
    }

    /** What the engine hands a catalog, as far as the connector uses it. */
    private static ConnectorContext context(String spiVersion)
    {
        TypeOperators typeOperators = new TypeOperators();
        TypeManager types = new TypeManager()
        {
            @Override
            public Type getType(TypeSignature signature)
            {
                if (signature.getBase().equals(StandardTypes.IPADDRESS)) {
                    return TestingIpAddressType.IPADDRESS;
                }
                throw new IllegalArgumentException("no type " + signature + " in this test");
            }

            @Override
            public Type fromSqlType(String type)
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public Type getType(TypeId id)
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public TypeOperators getTypeOperators()
            {
                return typeOperators;
            }
        };
        return new ConnectorContext()
        {
            @Override
            public String getSpiVersion()
            {
                return spiVersion;
            }

            @Override
            public TypeManager getTypeManager()
            {
                return types;
            }

            @Override
            public OpenTelemetry getOpenTelemetry()
            {
                return OpenTelemetry.noop();
            }

            @Override
            public Tracer getTracer()
            {
                return OpenTelemetry.noop().getTracer("test");
            }
        };
    }
}
