package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;

import java.util.List;

import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static io.trino.spi.session.PropertyMetadata.booleanProperty;
import static io.trino.spi.session.PropertyMetadata.integerProperty;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * The catalog's session properties: {@code pushdown_enabled} turns every
 * pushdown off for a session (its default is {@code sstable-flight.pushdown}),
 * so a query can be answered the plain way, every column of every row
 * read and filtered in Trino, to compare with; {@code scan_splits} asks
 * the server for that many endpoints of a scan (default
 * {@code sstable-flight.scan-splits}; 0 lets the server size them);
 * {@code dynamic_filtering_wait_timeout} is how long planning a scan
 * waits for a join's dynamic filter on the partition key, to read the
 * join's keys instead of the table (default
 * {@code sstable-flight.dynamic-filtering.wait-timeout}).
 */
public final class SstableFlightSessionProperties
{
    public static final String PUSHDOWN_ENABLED = "pushdown_enabled";
    public static final String SCAN_SPLITS = "scan_splits";
    public static final String DYNAMIC_FILTERING_WAIT_TIMEOUT = "dynamic_filtering_wait_timeout";
    /** The server's bound on a command's {@code splits} (docs/flight-api.md). */
    static final int MAX_SCAN_SPLITS = 4096;

    private final List<PropertyMetadata<?>> properties;

    @Inject
    public SstableFlightSessionProperties(SstableFlightConfig config)
    {
        properties = ImmutableList.of(
                booleanProperty(
                        PUSHDOWN_ENABLED,
                        "Push projections, key and clustering filters and limits down to sstable-flight",
                        config.isPushdown(),
                        false),
                integerProperty(
                        SCAN_SPLITS,
                        "Endpoints (Trino splits) to cut a scan into; 0: the server's own sizing, one per 250,000 rows",
                        config.getScanSplits(),
                        value -> {
                            if (value < 0 || value > MAX_SCAN_SPLITS) {
                                throw new TrinoException(INVALID_SESSION_PROPERTY, "%s must be between 0 and %d: %d".formatted(SCAN_SPLITS, MAX_SCAN_SPLITS, value));
                            }
                        },
                        false),
                new PropertyMetadata<>(
                        DYNAMIC_FILTERING_WAIT_TIMEOUT,
                        "How long planning a scan waits for a dynamic filter on the partition key (a join's keys) before it reads the whole table; 0s: never waits",
                        VARCHAR,
                        Duration.class,
                        config.getDynamicFilteringWaitTimeout(),
                        false,
                        value -> duration(DYNAMIC_FILTERING_WAIT_TIMEOUT, (String) value),
                        Duration::toString));
    }

    private static Duration duration(String property, String value)
    {
        try {
            return Duration.valueOf(value);
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(INVALID_SESSION_PROPERTY, "%s must be a duration such as 500ms or 2s: %s".formatted(property, value), e);
        }
    }

    public List<PropertyMetadata<?>> properties()
    {
        return properties;
    }

    public static int getScanSplits(ConnectorSession session)
    {
        return session.getProperty(SCAN_SPLITS, Integer.class);
    }

    public static Duration getDynamicFilteringWaitTimeout(ConnectorSession session)
    {
        return session.getProperty(DYNAMIC_FILTERING_WAIT_TIMEOUT, Duration.class);
    }

    public static boolean isPushdownEnabled(ConnectorSession session)
    {
        return session.getProperty(PUSHDOWN_ENABLED, Boolean.class);
    }
}
