package io.sstableflight.trino;

import com.google.common.collect.ImmutableMap;
import io.airlift.bootstrap.Bootstrap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.RoundingMode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.airlift.configuration.ConfigBinder.configBinder;
import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The catalog properties: their defaults and names (airlift's
 * ConfigAssertions: a property added without a test, or a default changed,
 * fails here), the constraints airlift checks when a catalog starts
 * (ValidationAssertions), and the properties as a catalog file binds them.
 */
class TestSstableFlightConfig
{
    @TempDir
    Path dir;

    @Test
    void defaults()
    {
        assertRecordedDefaults(recordDefaults(SstableFlightConfig.class)
                .setUri(null)
                .setToken(null)
                .setTokenFile(null)
                .setTlsCaFile(null)
                .setTlsCertFile(null)
                .setTlsKeyFile(null)
                .setRpcTimeout(new Duration(30, SECONDS))
                .setMetadataCacheTtl(new Duration(10, SECONDS))
                .setStatisticsTimeout(new Duration(2, SECONDS))
                .setDynamicFilteringWaitTimeout(new Duration(1, SECONDS))
                .setChannelsPerServer(4)
                .setFetchThreads(8)
                .setNextBatchTimeout(new Duration(5, MINUTES))
                .setKeepaliveTime(new Duration(30, SECONDS))
                .setKeepaliveTimeout(new Duration(10, SECONDS))
                .setMemoryLimit(DataSize.of(1, GIGABYTE))
                .setPushdown(true)
                .setScanSplits(0)
                .setSplitMemoryLimit(DataSize.of(256, MEGABYTE))
                .setDecimalMapping(SstableFlightConfig.DecimalMapping.VARCHAR)
                .setDecimalPrecision(38)
                .setDecimalScale(10)
                .setDecimalRoundingMode(RoundingMode.UNNECESSARY));
    }

    @Test
    void everyPropertyMapsToItsSetter()
            throws IOException
    {
        Path token = Files.writeString(dir.resolve("token"), "t");
        Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        Path key = Files.writeString(dir.resolve("key.pem"), "x");
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("sstable-flight.uri", "grpc+tls://a:1,grpc+tls://b:2")
                .put("sstable-flight.token", "secret")
                .put("sstable-flight.token-file", token.toString())
                .put("sstable-flight.tls.ca-file", ca.toString())
                .put("sstable-flight.tls.cert-file", cert.toString())
                .put("sstable-flight.tls.key-file", key.toString())
                .put("sstable-flight.rpc-timeout", "1m")
                .put("sstable-flight.metadata-cache-ttl", "0s")
                .put("sstable-flight.statistics-timeout", "500ms")
                .put("sstable-flight.dynamic-filtering.wait-timeout", "30s")
                .put("sstable-flight.channels-per-server", "2")
                .put("sstable-flight.fetch-threads", "3")
                .put("sstable-flight.next-batch-timeout", "90s")
                .put("sstable-flight.keepalive-time", "1m")
                .put("sstable-flight.keepalive-timeout", "3s")
                .put("sstable-flight.memory-limit", "2GB")
                .put("sstable-flight.pushdown", "false")
                .put("sstable-flight.scan-splits", "8")
                .put("sstable-flight.split-memory-limit", "64MB")
                .put("sstable-flight.decimal-mapping", "DECIMAL")
                .put("sstable-flight.decimal-precision", "18")
                .put("sstable-flight.decimal-scale", "4")
                .put("sstable-flight.decimal-rounding-mode", "HALF_EVEN")
                .buildOrThrow();
        assertFullMapping(properties, new SstableFlightConfig()
                .setUri("grpc+tls://a:1,grpc+tls://b:2")
                .setToken("secret")
                .setTokenFile(token.toString())
                .setTlsCaFile(ca.toString())
                .setTlsCertFile(cert.toString())
                .setTlsKeyFile(key.toString())
                .setRpcTimeout(new Duration(1, MINUTES))
                .setMetadataCacheTtl(new Duration(0, SECONDS))
                .setStatisticsTimeout(new Duration(500, java.util.concurrent.TimeUnit.MILLISECONDS))
                .setDynamicFilteringWaitTimeout(new Duration(30, SECONDS))
                .setChannelsPerServer(2)
                .setFetchThreads(3)
                .setNextBatchTimeout(new Duration(90, SECONDS))
                .setKeepaliveTime(new Duration(1, MINUTES))
                .setKeepaliveTimeout(new Duration(3, SECONDS))
                .setMemoryLimit(DataSize.of(2, GIGABYTE))
                .setPushdown(false)
                .setScanSplits(8)
                .setSplitMemoryLimit(DataSize.of(64, MEGABYTE))
                .setDecimalMapping(SstableFlightConfig.DecimalMapping.DECIMAL)
                .setDecimalPrecision(18)
                .setDecimalScale(4)
                .setDecimalRoundingMode(RoundingMode.HALF_EVEN));
    }

    @Test
    void seedsInOrder()
    {
        SstableFlightConfig config = new SstableFlightConfig().setUri("grpc://a:1, grpc+tls://b:2,grpc+tcp://c:3");
        assertValidates(config);
        assertThat(config.getSeeds()).containsExactly(URI.create("grpc://a:1"), URI.create("grpc+tls://b:2"), URI.create("grpc+tcp://c:3"));
    }

    @Test
    void refusesWhatCannotWork()
    {
        assertFailsValidation(new SstableFlightConfig(), "uri", "must not be null", NotNull.class);
        for (String uri : List.of("http://a:1", "grpc://a", "grpc://a:1/path", "a:1", "")) {
            assertFailsValidation(valid().setUri(uri), "uriValid", "sstable-flight.uri: give one or more grpc://host:port or grpc+tls://host:port, comma-separated", AssertTrue.class);
        }
        assertFailsValidation(valid().setUri("grpc+tls://a:1").setTlsCertFile("/c"), "clientCertificateComplete", "sstable-flight.tls.cert-file and sstable-flight.tls.key-file: give both or neither", AssertTrue.class);
        assertFailsValidation(valid().setTlsCaFile("/c"), "tlsUsedOnlyWithTls", "sstable-flight.tls.*: TLS files need a grpc+tls:// sstable-flight.uri", AssertTrue.class);
        assertFailsValidation(valid().setMemoryLimit(DataSize.of(100, MEGABYTE)).setSplitMemoryLimit(DataSize.of(200, MEGABYTE)),
                "splitMemoryLimitWithinMemoryLimit", "sstable-flight.split-memory-limit: must not exceed sstable-flight.memory-limit, of which each split's memory is a part", AssertTrue.class);
        assertFailsValidation(valid().setSplitMemoryLimit(DataSize.of(100, DataSize.Unit.KILOBYTE)), "splitMemoryLimit", "must be greater than or equal to 1MB", io.airlift.units.MinDataSize.class);
        assertFailsValidation(valid().setRpcTimeout(new Duration(10, java.util.concurrent.TimeUnit.MILLISECONDS)), "rpcTimeout", "must be greater than or equal to 1s", io.airlift.units.MinDuration.class);
        // The server plans 1..4096 endpoints.
        assertFailsValidation(valid().setScanSplits(4097), "scanSplits", "must be less than or equal to 4096", Max.class);
        assertFailsValidation(valid().setScanSplits(-1), "scanSplits", "must be greater than or equal to 0", Min.class);
        assertFailsValidation(valid().setStatisticsTimeout(new Duration(0, SECONDS)), "statisticsTimeout", "must be greater than or equal to 1ms", io.airlift.units.MinDuration.class);
        assertFailsValidation(valid().setChannelsPerServer(0), "channelsPerServer", "must be greater than or equal to 1", Min.class);
        assertFailsValidation(valid().setChannelsPerServer(65), "channelsPerServer", "must be less than or equal to 64", Max.class);
        assertFailsValidation(valid().setKeepaliveTime(new Duration(5, SECONDS)), "keepaliveTime", "must be greater than or equal to 10s", io.airlift.units.MinDuration.class);
        assertFailsValidation(valid().setKeepaliveTimeout(new Duration(500, java.util.concurrent.TimeUnit.MILLISECONDS)), "keepaliveTimeout", "must be greater than or equal to 1s", io.airlift.units.MinDuration.class);
        assertFailsValidation(valid().setFetchThreads(0), "fetchThreads", "must be greater than or equal to 1", Min.class);
        assertFailsValidation(valid().setNextBatchTimeout(new Duration(500, java.util.concurrent.TimeUnit.MILLISECONDS)), "nextBatchTimeout", "must be greater than or equal to 1s", io.airlift.units.MinDuration.class);
    }

    @Test
    void decimalTypeMustBeOneTrinoHas()
    {
        assertValidates(valid().setDecimalPrecision(1).setDecimalScale(0));
        assertValidates(valid().setDecimalPrecision(38).setDecimalScale(38));
        assertFailsValidation(valid().setDecimalPrecision(0), "decimalPrecision", "must be greater than or equal to 1", Min.class);
        assertFailsValidation(valid().setDecimalPrecision(39), "decimalPrecision", "must be less than or equal to 38", Max.class);
        assertFailsValidation(valid().setDecimalScale(-1), "decimalScale", "must be greater than or equal to 0", Min.class);
        assertFailsValidation(valid().setDecimalPrecision(10).setDecimalScale(11), "decimalScaleWithinPrecision", "sstable-flight.decimal-scale: must not exceed sstable-flight.decimal-precision", AssertTrue.class);
        assertFailsValidation(valid().setDecimalRoundingMode(null), "decimalRoundingMode", "must not be null", NotNull.class);
    }

    @Test
    void aCatalogFileBindsAndChecksThem()
            throws IOException
    {
        // Enum values in any case, as Trino's connectors take them (decimal-mapping=decimal).
        SstableFlightConfig config = bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.decimal-mapping", "decimal", "sstable-flight.decimal-rounding-mode", "half_up"));
        assertThat(config.getDecimalMapping()).isEqualTo(SstableFlightConfig.DecimalMapping.DECIMAL);
        assertThat(config.getDecimalRoundingMode()).isEqualTo(RoundingMode.HALF_UP);
        assertThatThrownBy(() -> bind(Map.of())).hasMessageContaining("sstable-flight.uri");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc+tls://a:1", "sstable-flight.tls.ca-file", dir.resolve("missing.pem").toString())))
                .hasMessageContaining("missing.pem");
        assertThatThrownBy(() -> bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.decimal-mapping", "DOUBLE")))
                .hasMessageContaining("sstable-flight.decimal-mapping");
    }

    @Test
    void aTokenFileThatHoldsNoTokenIsRefused()
            throws IOException
    {
        Path empty = Files.writeString(dir.resolve("token"), "  \n");
        SstableFlightConfig config = bind(Map.of("sstable-flight.uri", "grpc://a:1", "sstable-flight.token-file", empty.toString()));
        assertThatThrownBy(() -> new FlightClientPool(config))
                .hasMessage("sstable-flight.token-file %s: holds no token".formatted(empty));
    }

    private static SstableFlightConfig valid()
    {
        return new SstableFlightConfig().setUri("grpc://a:1");
    }

    private static SstableFlightConfig bind(Map<String, String> properties)
    {
        return new Bootstrap(binder -> configBinder(binder).bindConfig(SstableFlightConfig.class))
                .doNotInitializeLogging()
                .quiet()
                .setRequiredConfigurationProperties(properties)
                .initialize()
                .getInstance(SstableFlightConfig.class);
    }
}
