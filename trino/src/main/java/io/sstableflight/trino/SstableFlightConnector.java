package io.sstableflight.trino;

import com.google.inject.Inject;
import io.airlift.bootstrap.LifeCycleManager;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The read-only connector: a fresh metadata per transaction, shared split manager and page sources. */
public final class SstableFlightConnector
        implements Connector
{
    private final LifeCycleManager lifeCycleManager;
    private final FlightClientPool clients;
    private final MetadataCache metadataCache;
    private final TypeMapping typeMapping;
    private final SstableFlightSplitManager splitManager;
    private final SstableFlightPageSourceProvider pageSourceProvider;
    private final SstableFlightSessionProperties sessionProperties;

    @Inject
    public SstableFlightConnector(
            LifeCycleManager lifeCycleManager,
            FlightClientPool clients,
            MetadataCache metadataCache,
            TypeMapping typeMapping,
            SstableFlightSplitManager splitManager,
            SstableFlightPageSourceProvider pageSourceProvider,
            SstableFlightSessionProperties sessionProperties)
    {
        this.lifeCycleManager = requireNonNull(lifeCycleManager, "lifeCycleManager is null");
        this.clients = requireNonNull(clients, "clients is null");
        this.metadataCache = requireNonNull(metadataCache, "metadataCache is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.sessionProperties = requireNonNull(sessionProperties, "sessionProperties is null");
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        return SstableFlightTransactionHandle.INSTANCE;
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transaction)
    {
        return new SstableFlightMetadata(metadataCache, typeMapping);
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return pageSourceProvider;
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties.properties();
    }

    @Override
    public void shutdown()
    {
        lifeCycleManager.stop();
        pageSourceProvider.close();
        clients.close();
    }
}
