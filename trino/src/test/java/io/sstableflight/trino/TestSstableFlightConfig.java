package io.sstableflight.trino;

import io.airlift.bootstrap.Bootstrap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.airlift.configuration.ConfigBinder.configBinder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The catalog properties as airlift binds and validates them when a catalog starts. */
class TestSstableFlightConfig
{
    @TempDir
    Path dir;

    private static SstableFlightConfig bind(Map<String, String> properties)
    {
        return new Bootstrap(binder -> configBinder(binder).bindConfig(SstableFlightConfig.class))
                .doNotInitializeLogging()
                .quiet()
                .setRequiredConfigurationProperties(properties)
                .initialize()
                .getInstance(SstableFlightConfig.class);
    }

    @Test
    void seedsInOrder()
    {
        SstableFlightConfig config = bind(Map.of("sstable-flight.uri", "grpc://a:1, grpc+tls://b:2,grpc+tcp://c:3"));
        assertThat(config.getSeeds()).containsExactly(URI.create("grpc://a:1"), URI.create("grpc+tls://b:2"), URI.create("grpc+tcp://c:3"));
        assertThat(config.getRpcTimeout().toMillis()).isEqualTo(30_000);
        assertThat(config.getMetadataCacheTtl().toMillis()).isEqualTo(10_000);
        assertThat(config.getSplitMemoryLimit()).isEqualTo(DataSize.of(256, DataSize.Unit.MEGABYTE));
    }

    @Test
    void refusesWhatCannotWork()
            throws IOException
    {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        assertThatThrownBy(() -> bind(Map.of())).hasMessageContaining("sstable-flight.uri");
        for (String uri : List.of("http://a:1", "grpc://a", "grpc://a:1/path", "a:1", "")) {
            assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", uri))).as(uri).hasMessageContaining("give one or more grpc://host:port");
        }
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.token", "t", "sstable-flight.token-file", cert.toString())))
                .hasMessageContaining("give one, not both");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc+tls://a:1", "sstable-flight.tls.cert-file", cert.toString())))
                .hasMessageContaining("give both or neither");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.tls.ca-file", cert.toString())))
                .hasMessageContaining("need a grpc+tls://");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc+tls://a:1", "sstable-flight.tls.ca-file", dir.resolve("missing.pem").toString())))
                .hasMessageContaining("missing.pem");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.memory-limit", "100MB", "sstable-flight.split-memory-limit", "200MB")))
                .hasMessageContaining("must not exceed sstable-flight.memory-limit");
    }

    @Test
    void aTokenFileThatHoldsNoTokenIsRefused()
            throws IOException
    {
        Path empty = Files.writeString(dir.resolve("token"), "  \n");
        Map<String, String> properties = new HashMap<>(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.token-file", empty.toString()));
        assertThatThrownBy(() -> new FlightClientPool(bind(properties)))
                .hasMessage("sstable-flight.token-file %s: holds no token".formatted(empty));
    }

    @Test
    void pushdownAndScanSplits()
    {
        SstableFlightConfig defaults = bind(Map.of("sstable-flight.uri", "grpc://a:1"));
        assertThat(defaults.isPushdown()).isTrue();
        assertThat(defaults.getScanSplits()).isZero();
        SstableFlightConfig set = bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.pushdown", "false", "sstable-flight.scan-splits", "8"));
        assertThat(set.isPushdown()).isFalse();
        assertThat(set.getScanSplits()).isEqualTo(8);
        // The server plans 1..4096 endpoints.
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.scan-splits", "4097"))).hasMessageContaining("scanSplits");
    }

    @Test
    void transport()
    {
        SstableFlightConfig defaults = bind(Map.of("sstable-flight.uri", "grpc://a:1"));
        assertThat(defaults.getChannelsPerServer()).isEqualTo(4);
        assertThat(defaults.getFetchThreads()).isEqualTo(8);
        assertThat(defaults.getNextBatchTimeout()).isEqualTo(new Duration(5, TimeUnit.MINUTES));
        SstableFlightConfig set = bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.channels-per-server", "1",
                "sstable-flight.fetch-threads", "2", "sstable-flight.next-batch-timeout", "90s"));
        assertThat(set.getChannelsPerServer()).isEqualTo(1);
        assertThat(set.getFetchThreads()).isEqualTo(2);
        assertThat(set.getNextBatchTimeout()).isEqualTo(new Duration(90, TimeUnit.SECONDS));
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.channels-per-server", "0"))).hasMessageContaining("channelsPerServer");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.fetch-threads", "0"))).hasMessageContaining("fetchThreads");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.next-batch-timeout", "0s"))).hasMessageContaining("nextBatchTimeout");
    }
}
