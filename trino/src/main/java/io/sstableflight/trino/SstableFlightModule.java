package io.sstableflight.trino;

import com.google.inject.Binder;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.type.StandardTypes;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeSignature;

import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.inject.multibindings.Multibinder.newSetBinder;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

/**
 * Wires the connector: config, the client pool, the metadata cache (its
 * procedure and its JMX stats), the type mapping and the SPI roles. What
 * the engine gives a catalog (TypeManager, OpenTelemetry, Tracer, its name)
 * is bound by SstableFlightConnectorFactory.
 */
public final class SstableFlightModule
        extends AbstractConfigurationAwareModule
{
    @Override
    protected void setup(Binder binder)
    {
        configBinder(binder).bindConfig(SstableFlightConfig.class);
        SstableFlightConfig config = buildConfigObject(SstableFlightConfig.class);
        checkArgument(config.getToken().isEmpty() || config.getTokenFile().isEmpty(), "sstable-flight.token and sstable-flight.token-file: give one, not both");
        binder.bind(FlightClientPool.class).in(Scopes.SINGLETON);
        binder.bind(MetadataCache.class).in(Scopes.SINGLETON);
        binder.bind(MetadataCacheStats.class).in(Scopes.SINGLETON);
        newExporter(binder).export(MetadataCacheStats.class).withGeneratedName();
        newSetBinder(binder, Procedure.class).addBinding().toProvider(FlushMetadataCacheProcedure.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightSessionProperties.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightConnector.class).in(Scopes.SINGLETON);
    }

    @Provides
    @Singleton
    public static TypeMapping typeMapping(TypeManager typeManager, SstableFlightConfig config)
    {
        return new TypeMapping(
                typeManager.getType(new TypeSignature(StandardTypes.IPADDRESS)),
                typeManager.getTypeOperators(),
                switch (config.getDecimalMapping()) {
                    case VARCHAR -> Optional.empty();
                    case DECIMAL -> Optional.of(createDecimalType(config.getDecimalPrecision(), config.getDecimalScale()));
                },
                config.getDecimalRoundingMode());
    }
}
