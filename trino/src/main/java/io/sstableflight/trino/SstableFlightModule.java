package io.sstableflight.trino;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.trino.spi.type.StandardTypes;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeSignature;

import static io.airlift.configuration.ConfigBinder.configBinder;
import static java.util.Objects.requireNonNull;

/** Wires the connector: config, the client pool, the type mapping and the SPI roles. */
public final class SstableFlightModule
        implements Module
{
    private final TypeManager typeManager;

    public SstableFlightModule(TypeManager typeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
    }

    @Override
    public void configure(Binder binder)
    {
        configBinder(binder).bindConfig(SstableFlightConfig.class);
        binder.bind(FlightClientPool.class).in(Scopes.SINGLETON);
        binder.bind(MetadataCache.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightSessionProperties.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(SstableFlightConnector.class).in(Scopes.SINGLETON);
    }

    @Provides
    @Singleton
    public TypeMapping typeMapping()
    {
        return new TypeMapping(typeManager.getType(new TypeSignature(StandardTypes.IPADDRESS)), typeManager.getTypeOperators());
    }
}
