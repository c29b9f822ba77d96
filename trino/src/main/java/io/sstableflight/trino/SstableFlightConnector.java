package io.sstableflight.trino;

import com.google.common.collect.ImmutableSet;
import com.google.inject.Inject;
import io.airlift.bootstrap.LifeCycleManager;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorPageSourceProvider;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorSplitManager;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;
import org.weakref.jmx.MBeanExporter;

import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The read-only connector: a fresh metadata per transaction, shared split
 * manager and page sources, and the procedure that flushes the metadata
 * cache. What the engine calls runs with the plugin's class loader as the
 * thread's context loader (the toolkit's class-loader-safe wrappers), so
 * gRPC, Netty and Arrow, which look up their providers through it, find
 * the plugin's own classes, and threads they start (the fetch threads
 * among them) inherit it.
 */
public final class SstableFlightConnector
        implements Connector
{
    private final LifeCycleManager lifeCycleManager;
    private final MBeanExporter mbeanExporter;
    private final FlightClientPool clients;
    private final MetadataCache metadataCache;
    private final TypeMapping typeMapping;
    private final ConnectorSplitManager splitManager;
    private final SstableFlightPageSourceProvider pageSourceProvider;
    private final ConnectorPageSourceProvider classLoaderSafePageSourceProvider;
    private final SstableFlightSessionProperties sessionProperties;
    private final Set<Procedure> procedures;
    private final ClassLoader classLoader = getClass().getClassLoader();

    @Inject
    public SstableFlightConnector(
            LifeCycleManager lifeCycleManager,
            MBeanExporter mbeanExporter,
            FlightClientPool clients,
            MetadataCache metadataCache,
            TypeMapping typeMapping,
            SstableFlightSplitManager splitManager,
            SstableFlightPageSourceProvider pageSourceProvider,
            SstableFlightSessionProperties sessionProperties,
            Set<Procedure> procedures)
    {
        this.lifeCycleManager = requireNonNull(lifeCycleManager, "lifeCycleManager is null");
        this.mbeanExporter = requireNonNull(mbeanExporter, "mbeanExporter is null");
        this.clients = requireNonNull(clients, "clients is null");
        this.metadataCache = requireNonNull(metadataCache, "metadataCache is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
        this.splitManager = new ClassLoaderSafeConnectorSplitManager(requireNonNull(splitManager, "splitManager is null"), classLoader);
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.classLoaderSafePageSourceProvider = new ClassLoaderSafeConnectorPageSourceProvider(pageSourceProvider, classLoader);
        this.sessionProperties = requireNonNull(sessionProperties, "sessionProperties is null");
        this.procedures = ImmutableSet.copyOf(requireNonNull(procedures, "procedures is null"));
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        return SstableFlightTransactionHandle.INSTANCE;
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transaction)
    {
        return new ClassLoaderSafeConnectorMetadata(new SstableFlightMetadata(metadataCache, typeMapping), classLoader);
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return classLoaderSafePageSourceProvider;
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties.properties();
    }

    @Override
    public Set<Procedure> getProcedures()
    {
        return procedures;
    }

    @Override
    public void shutdown()
    {
        lifeCycleManager.stop();
        // jmxutils marks its unexport with javax's @PreDestroy, which airlift's life cycle no longer
        // runs: without this a dropped catalog's MBeans stay, and a catalog made again under its name
        // would show them instead of its own.
        mbeanExporter.unexportAllAndReportMissing();
        pageSourceProvider.close();
        clients.close();
    }
}
