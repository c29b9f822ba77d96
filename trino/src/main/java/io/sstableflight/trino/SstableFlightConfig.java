package io.sstableflight.trino;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigSecuritySensitive;
import io.airlift.configuration.validation.FileExists;
import io.airlift.units.DataSize;
import io.airlift.units.MinDataSize;
import io.airlift.units.Duration;
import io.airlift.units.MinDuration;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.math.RoundingMode;
import java.net.URI;
import java.util.List;
import java.util.Optional;

import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The catalog file's {@code sstable-flight.*} properties. Airlift checks the
 * constraints below when the catalog starts, so a property that cannot work
 * stops Trino naming it, never the first query.
 */
public class SstableFlightConfig
{
    /** How CQL decimal columns appear in Trino (docs/trino.md, Decimals). */
    public enum DecimalMapping
    {
        /** Exact text of any precision and scale: a CQL decimal has both per value. */
        VARCHAR,
        /** DECIMAL(decimal-precision, decimal-scale), rounded per decimal-rounding-mode; a value beyond the precision fails. */
        DECIMAL,
    }

    private String uri;
    private String token;
    private String tokenFile;
    private String tlsCaFile;
    private String tlsCertFile;
    private String tlsKeyFile;
    private Duration rpcTimeout = new Duration(30, SECONDS);
    private Duration metadataCacheTtl = new Duration(10, SECONDS);
    private Duration statisticsTimeout = new Duration(2, SECONDS);
    private Duration dynamicFilteringWaitTimeout = new Duration(1, SECONDS);
    private DataSize memoryLimit = DataSize.of(1, DataSize.Unit.GIGABYTE);
    private boolean pushdown = true;
    private int scanSplits;
    private DataSize splitMemoryLimit = DataSize.of(256, DataSize.Unit.MEGABYTE);
    private int channelsPerServer = 4;
    private int fetchThreads = 8;
    private Duration nextBatchTimeout = new Duration(5, MINUTES);
    private Duration keepaliveTime = new Duration(30, SECONDS);
    private Duration keepaliveTimeout = new Duration(10, SECONDS);
    private DecimalMapping decimalMapping = DecimalMapping.VARCHAR;
    private int decimalPrecision = 38;
    private int decimalScale = 10;
    private RoundingMode decimalRoundingMode = RoundingMode.UNNECESSARY;

    @NotNull
    public String getUri()
    {
        return uri;
    }

    @Config("sstable-flight.uri")
    @ConfigDescription("Seed servers, comma-separated: grpc://host:port or grpc+tls://host:port; metadata and planning go to the first that answers")
    public SstableFlightConfig setUri(String uri)
    {
        this.uri = uri;
        return this;
    }

    /** The seeds, in the order given; only valid once {@link #isUriValid()} holds. */
    public List<URI> getSeeds()
    {
        return Splitter.on(',').trimResults().omitEmptyStrings().splitToStream(uri)
                .map(URI::create)
                .collect(ImmutableList.toImmutableList());
    }

    public Optional<String> getToken()
    {
        return Optional.ofNullable(token);
    }

    // Not with token-file: SstableFlightModule refuses both (a constraint here would keep
    // ConfigAssertions.assertFullMapping from setting every property at once).
    @Config("sstable-flight.token")
    @ConfigSecuritySensitive
    @ConfigDescription("Bearer token sent with every RPC (the server's --auth-token-file); prefer sstable-flight.token-file")
    public SstableFlightConfig setToken(String token)
    {
        this.token = token;
        return this;
    }

    public Optional<@FileExists String> getTokenFile()
    {
        return Optional.ofNullable(tokenFile);
    }

    @Config("sstable-flight.token-file")
    @ConfigDescription("File holding the bearer token (surrounding whitespace is trimmed)")
    public SstableFlightConfig setTokenFile(String tokenFile)
    {
        this.tokenFile = tokenFile;
        return this;
    }

    public Optional<@FileExists String> getTlsCaFile()
    {
        return Optional.ofNullable(tlsCaFile);
    }

    @Config("sstable-flight.tls.ca-file")
    @ConfigDescription("PEM CA bundle the servers' certificates must chain to (default: the JVM's trust store)")
    public SstableFlightConfig setTlsCaFile(String tlsCaFile)
    {
        this.tlsCaFile = tlsCaFile;
        return this;
    }

    public Optional<@FileExists String> getTlsCertFile()
    {
        return Optional.ofNullable(tlsCertFile);
    }

    @Config("sstable-flight.tls.cert-file")
    @ConfigDescription("PEM client certificate, for servers that require one (--tls-client-ca); needs sstable-flight.tls.key-file")
    public SstableFlightConfig setTlsCertFile(String tlsCertFile)
    {
        this.tlsCertFile = tlsCertFile;
        return this;
    }

    public Optional<@FileExists String> getTlsKeyFile()
    {
        return Optional.ofNullable(tlsKeyFile);
    }

    @Config("sstable-flight.tls.key-file")
    @ConfigDescription("PEM private key of sstable-flight.tls.cert-file")
    public SstableFlightConfig setTlsKeyFile(String tlsKeyFile)
    {
        this.tlsKeyFile = tlsKeyFile;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getRpcTimeout()
    {
        return rpcTimeout;
    }

    @Config("sstable-flight.rpc-timeout")
    @ConfigDescription("Deadline of metadata and planning RPCs (ListFlights, GetFlightInfo); streams have none")
    public SstableFlightConfig setRpcTimeout(Duration rpcTimeout)
    {
        this.rpcTimeout = rpcTimeout;
        return this;
    }

    @NotNull
    @MinDuration("0s")
    public Duration getMetadataCacheTtl()
    {
        return metadataCacheTtl;
    }

    @Config("sstable-flight.metadata-cache-ttl")
    @ConfigDescription("How long the table listing and table-stats are kept across queries (0s: read for every query); a name not in the kept listing is looked up again at once")
    public SstableFlightConfig setMetadataCacheTtl(Duration metadataCacheTtl)
    {
        this.metadataCacheTtl = metadataCacheTtl;
        return this;
    }

    @NotNull
    @MinDuration("1ms")
    public Duration getStatisticsTimeout()
    {
        return statisticsTimeout;
    }

    @Config("sstable-flight.statistics-timeout")
    @ConfigDescription("Deadline of the table-stats call planning makes; statistics that fail or come later are unknown, the query goes on")
    public SstableFlightConfig setStatisticsTimeout(Duration statisticsTimeout)
    {
        this.statisticsTimeout = statisticsTimeout;
        return this;
    }

    @NotNull
    @MinDuration("0s")
    public Duration getDynamicFilteringWaitTimeout()
    {
        return dynamicFilteringWaitTimeout;
    }

    @Config("sstable-flight.dynamic-filtering.wait-timeout")
    @ConfigDescription("How long planning a scan waits for a join's dynamic filter on the partition key, to read those keys instead of the table (the default of the session property dynamic_filtering_wait_timeout)")
    public SstableFlightConfig setDynamicFilteringWaitTimeout(Duration dynamicFilteringWaitTimeout)
    {
        this.dynamicFilteringWaitTimeout = dynamicFilteringWaitTimeout;
        return this;
    }

    @NotNull
    public DataSize getMemoryLimit()
    {
        return memoryLimit;
    }

    @Config("sstable-flight.memory-limit")
    @ConfigDescription("Arrow memory all streams of this catalog may hold at once on one Trino node")
    public SstableFlightConfig setMemoryLimit(DataSize memoryLimit)
    {
        this.memoryLimit = memoryLimit;
        return this;
    }

    public boolean isPushdown()
    {
        return pushdown;
    }

    @Config("sstable-flight.pushdown")
    @ConfigDescription("Push projections, key and clustering filters and limits down to the server (the default of the session property pushdown_enabled)")
    public SstableFlightConfig setPushdown(boolean pushdown)
    {
        this.pushdown = pushdown;
        return this;
    }

    @Min(0)
    @Max(SstableFlightSessionProperties.MAX_SCAN_SPLITS)
    public int getScanSplits()
    {
        return scanSplits;
    }

    @Config("sstable-flight.scan-splits")
    @ConfigDescription("Endpoints (Trino splits) to cut a table scan into; 0 (the default) lets the server size them, one per 250,000 rows")
    public SstableFlightConfig setScanSplits(int scanSplits)
    {
        this.scanSplits = scanSplits;
        return this;
    }

    @NotNull
    @MinDataSize("1MB")
    public DataSize getSplitMemoryLimit()
    {
        return splitMemoryLimit;
    }

    @Config("sstable-flight.split-memory-limit")
    @ConfigDescription("Arrow memory one split's stream may hold: the batch Trino converts and those gRPC has received ahead of it")
    public SstableFlightConfig setSplitMemoryLimit(DataSize splitMemoryLimit)
    {
        this.splitMemoryLimit = splitMemoryLimit;
        return this;
    }

    @Min(1)
    @Max(64)
    public int getChannelsPerServer()
    {
        return channelsPerServer;
    }

    @Config("sstable-flight.channels-per-server")
    @ConfigDescription("gRPC connections (HTTP/2) to each server; split streams are spread over them in turn, metadata calls use the first")
    public SstableFlightConfig setChannelsPerServer(int channelsPerServer)
    {
        this.channelsPerServer = channelsPerServer;
        return this;
    }

    @Min(1)
    public int getFetchThreads()
    {
        return fetchThreads;
    }

    @Config("sstable-flight.fetch-threads")
    @ConfigDescription("Threads that take the record batches gRPC has received into the splits' Arrow vectors; none of them ever waits on a server")
    public SstableFlightConfig setFetchThreads(int fetchThreads)
    {
        this.fetchThreads = fetchThreads;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getNextBatchTimeout()
    {
        return nextBatchTimeout;
    }

    @Config("sstable-flight.next-batch-timeout")
    @ConfigDescription("How long a split waits for its server's next record batch (the first included) before it fails, or, before any row was read, moves to the next location")
    public SstableFlightConfig setNextBatchTimeout(Duration nextBatchTimeout)
    {
        this.nextBatchTimeout = nextBatchTimeout;
        return this;
    }

    /** sstable-flight permits a ping every 10 s (flightserver/limits.go) and sends GOAWAY to a client pinging more often. */
    @NotNull
    @MinDuration("10s")
    public Duration getKeepaliveTime()
    {
        return keepaliveTime;
    }

    @Config("sstable-flight.keepalive-time")
    @ConfigDescription("A connection with nothing from its server for this long is pinged (at least 10s, what the server permits)")
    public SstableFlightConfig setKeepaliveTime(Duration keepaliveTime)
    {
        this.keepaliveTime = keepaliveTime;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getKeepaliveTimeout()
    {
        return keepaliveTimeout;
    }

    @Config("sstable-flight.keepalive-timeout")
    @ConfigDescription("A ping not answered within this closes the connection: its splits fail (UNAVAILABLE, Keepalive failed) instead of waiting on a dead server")
    public SstableFlightConfig setKeepaliveTimeout(Duration keepaliveTimeout)
    {
        this.keepaliveTimeout = keepaliveTimeout;
        return this;
    }

    @NotNull
    public DecimalMapping getDecimalMapping()
    {
        return decimalMapping;
    }

    @Config("sstable-flight.decimal-mapping")
    @ConfigDescription("Trino type of CQL decimal columns: VARCHAR (exact text, any precision and scale) or DECIMAL (DECIMAL(decimal-precision, decimal-scale), rounded per decimal-rounding-mode)")
    public SstableFlightConfig setDecimalMapping(DecimalMapping decimalMapping)
    {
        this.decimalMapping = decimalMapping;
        return this;
    }

    @Min(1)
    @Max(38)
    public int getDecimalPrecision()
    {
        return decimalPrecision;
    }

    @Config("sstable-flight.decimal-precision")
    @ConfigDescription("Precision of the DECIMAL type of decimal columns (decimal-mapping DECIMAL); a value with more digits fails the query")
    public SstableFlightConfig setDecimalPrecision(int decimalPrecision)
    {
        this.decimalPrecision = decimalPrecision;
        return this;
    }

    @Min(0)
    @Max(38)
    public int getDecimalScale()
    {
        return decimalScale;
    }

    @Config("sstable-flight.decimal-scale")
    @ConfigDescription("Scale of the DECIMAL type of decimal columns (decimal-mapping DECIMAL); a value with more fraction digits is rounded per decimal-rounding-mode")
    public SstableFlightConfig setDecimalScale(int decimalScale)
    {
        this.decimalScale = decimalScale;
        return this;
    }

    @NotNull
    public RoundingMode getDecimalRoundingMode()
    {
        return decimalRoundingMode;
    }

    @Config("sstable-flight.decimal-rounding-mode")
    @ConfigDescription("How a decimal with more fraction digits than decimal-scale is rounded (Java's RoundingMode); UNNECESSARY fails the query instead")
    public SstableFlightConfig setDecimalRoundingMode(RoundingMode decimalRoundingMode)
    {
        this.decimalRoundingMode = decimalRoundingMode;
        return this;
    }

    @AssertTrue(message = "sstable-flight.decimal-scale: must not exceed sstable-flight.decimal-precision")
    public boolean isDecimalScaleWithinPrecision()
    {
        return decimalScale <= decimalPrecision;
    }

    @AssertTrue(message = "sstable-flight.split-memory-limit: must not exceed sstable-flight.memory-limit, of which each split's memory is a part")
    public boolean isSplitMemoryLimitWithinMemoryLimit()
    {
        return splitMemoryLimit == null || memoryLimit == null || splitMemoryLimit.toBytes() <= memoryLimit.toBytes();
    }

    @AssertTrue(message = "sstable-flight.uri: give one or more grpc://host:port or grpc+tls://host:port, comma-separated")
    public boolean isUriValid()
    {
        if (uri == null) {
            return true; // @NotNull reports it
        }
        try {
            List<URI> seeds = getSeeds();
            return !seeds.isEmpty() && seeds.stream().allMatch(FlightLocations::isValid);
        }
        catch (IllegalArgumentException e) {
            return false;
        }
    }

    @AssertTrue(message = "sstable-flight.tls.cert-file and sstable-flight.tls.key-file: give both or neither")
    public boolean isClientCertificateComplete()
    {
        return (tlsCertFile == null) == (tlsKeyFile == null);
    }

    @AssertTrue(message = "sstable-flight.tls.*: TLS files need a grpc+tls:// sstable-flight.uri")
    public boolean isTlsUsedOnlyWithTls()
    {
        if (tlsCaFile == null && tlsCertFile == null) {
            return true;
        }
        return uri != null && isUriValid() && getSeeds().stream().anyMatch(FlightLocations::isTls);
    }
}
