package io.sstableflight.trino;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Builds one connector per catalog file with {@code connector.name=sstable_flight}.
 * The JVM options Arrow needs are checked first, so a Trino without them
 * fails at start with the line to add instead of at the first query.
 */
public final class SstableFlightConnectorFactory
        implements ConnectorFactory
{
    public static final String NAME = "sstable_flight";

    @Override
    public String getName()
    {
        return NAME;
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
    {
        requireNonNull(catalogName, "catalogName is null");
        requireNonNull(config, "config is null");
        requireNonNull(context, "context is null");
        ArrowJvmCheck.require(catalogName);

        Bootstrap app = new Bootstrap(new SstableFlightModule(context.getTypeManager()));
        Injector injector = app
                .doNotInitializeLogging()
                .setRequiredConfigurationProperties(config)
                .initialize();
        return injector.getInstance(SstableFlightConnector.class);
    }
}
