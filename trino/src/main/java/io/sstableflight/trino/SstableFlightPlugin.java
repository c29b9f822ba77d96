package io.sstableflight.trino;

import io.trino.spi.Plugin;
import io.trino.spi.connector.ConnectorFactory;

import java.util.List;

/**
 * The plugin Trino finds in plugin/ (through META-INF/services, written by
 * the trino-plugin packaging): it offers the one connector factory,
 * {@code connector.name=sstable_flight}.
 */
public final class SstableFlightPlugin
        implements Plugin
{
    @Override
    public Iterable<ConnectorFactory> getConnectorFactories()
    {
        return List.of(new SstableFlightConnectorFactory());
    }
}
