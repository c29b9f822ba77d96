package io.sstableflight.trino;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.trino.plugin.base.CatalogNameModule;
import io.trino.plugin.base.jmx.ConnectorObjectNameGeneratorModule;
import io.trino.plugin.base.jmx.MBeanServerModule;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.type.TypeManager;
import org.weakref.jmx.guice.MBeanModule;

import java.util.Map;

import static io.trino.plugin.base.Versions.checkStrictSpiVersionMatch;
import static java.util.Objects.requireNonNull;

/**
 * Builds one connector per catalog file with {@code connector.name=sstable_flight}.
 * The plugin is built against one SPI (476) and refuses any other Trino
 * at once, as Trino's own plugins do, rather than fail on a changed SPI
 * method mid-query. The JVM options Arrow needs are checked next, so a
 * Trino without them fails at start with the line to add instead of at
 * the first query. The catalog's MBeans are named
 * {@code trino.plugin.sstableflight:type=...,name=<catalog>} (base
 * {@code jmx.base-name}).
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
        checkStrictSpiVersionMatch(context, this);
        ArrowJvmCheck.require(catalogName);

        Bootstrap app = new Bootstrap(
                binder -> {
                    binder.bind(TypeManager.class).toInstance(context.getTypeManager());
                    binder.bind(OpenTelemetry.class).toInstance(context.getOpenTelemetry());
                    binder.bind(Tracer.class).toInstance(context.getTracer());
                },
                new CatalogNameModule(catalogName),
                new MBeanModule(),
                new MBeanServerModule(),
                new ConnectorObjectNameGeneratorModule("io.sstableflight.trino", "trino.plugin.sstableflight"),
                new SstableFlightModule());
        Injector injector = app
                .doNotInitializeLogging()
                .setRequiredConfigurationProperties(config)
                .initialize();
        return injector.getInstance(SstableFlightConnector.class);
    }
}
