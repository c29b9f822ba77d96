package io.sstableflight.trino;

import com.google.inject.Binder;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.trino.spi.type.StandardTypes;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeSignature;

import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static java.util.Objects.requireNonNull;

/** Wires the connector: config, the client pool, the type mapping and the SPI roles. */
public final class SstableFlightModule
        extends AbstractConfigurationAwareModule
{
    private final TypeManager typeManager;

    public SstableFlightModule(TypeManager typeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
    }

    @Override
    protected void setup(Binder binder)
    {
        configBinder(binder).bindConfig(SstableFlightConfig.class);
        SstableFlightConfig config = buildConfigObject(SstableFlightConfig.class);
        checkArgument(config.getToken().isEmpty() || config.getTokenFile().isEmpty(), "sstable-flight.token and sstable-flight.token-file: give one, not both");
        binder.bind(FlightClientPool.class).in(Scopes.SINGLETON);
        binder.bind(MetadataCache.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightSessionProperties.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightConnector.class).in(Scopes.SINGLETON);
    }

    @Provides
    @Singleton
    public TypeMapping typeMapping(SstableFlightConfig config)
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
