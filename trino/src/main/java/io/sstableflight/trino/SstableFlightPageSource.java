package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_SERVER_ERROR;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_STREAM_FAILED;
import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_UNAVAILABLE;
import static java.util.Objects.requireNonNull;

/**
 * Reads one split's DoGet stream and hands Trino one page per record batch.
 *
 * Failover: the locations are tried in order while no batch has been read;
 * a location that answers UNAVAILABLE or cannot be reached is skipped.
 * Once a batch was returned, any failure fails the query: a retry elsewhere
 * would return those rows twice.
 */
public final class SstableFlightPageSource
        implements ConnectorPageSource
{
    private static final Logger log = Logger.get(SstableFlightPageSource.class);

    private final FlightClientPool clients;
    private final SstableFlightSplit split;
    private final List<SstableFlightColumnHandle> columns;
    private final TypeMapping typeMapping;

    private FlightStream stream;
    private URI streamLocation;
    private BoundColumns bound;
    private boolean drained;
    private boolean finished;
    private long completedBytes;
    private long completedPositions;
    private long readTimeNanos;

    public SstableFlightPageSource(FlightClientPool clients, TypeMapping typeMapping, SstableFlightSplit split, List<SstableFlightColumnHandle> columns)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.typeMapping = requireNonNull(typeMapping, "typeMapping is null");
        this.split = requireNonNull(split, "split is null");
        this.columns = ImmutableList.copyOf(columns);
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        long start = System.nanoTime();
        boolean hasBatch;
        try {
            hasBatch = stream == null ? open() : next();
        }
        finally {
            readTimeNanos += System.nanoTime() - start;
        }
        if (!hasBatch) {
            drained = true;
            finished = true;
            closeStream();
            return null;
        }
        VectorSchemaRoot root = stream.getRoot();
        // Every vector of the batch came over the wire, read or not (count(*) reads none).
        for (FieldVector vector : root.getFieldVectors()) {
            completedBytes += vector.getBufferSize();
        }
        Page page = bound.toPage(root);
        completedPositions += page.getPositionCount();
        return SourcePage.create(page);
    }

    /** Opens the stream on the first location that answers and returns whether it has a first batch. */
    private boolean open()
    {
        List<URI> locations = split.locationUris();
        List<String> skipped = new ArrayList<>();
        for (int i = 0; i < locations.size(); i++) {
            URI location = locations.get(i);
            FlightStream candidate = null;
            try {
                candidate = clients.getStream(location, split.ticket());
                // NB: the call's status arrives with the first message, so an unreachable or
                // busy server shows here, before any row has reached Trino.
                boolean hasBatch = candidate.next();
                stream = candidate;
                streamLocation = location;
                bound = BoundColumns.bind(candidate.getRoot().getSchema().getFields(), columns, typeMapping, location.toString());
                return hasBatch;
            }
            catch (FlightRuntimeException e) {
                Closing.quietly(candidate, log, "stream of " + location);
                if (!FlightClientPool.isUnavailable(e)) {
                    throw new TrinoException(SSTABLE_FLIGHT_SERVER_ERROR, "read split from %s: %s %s".formatted(location, e.status().code(), e.getMessage()), e);
                }
                skipped.add(location + " (" + e.getMessage() + ")");
                if (i + 1 < locations.size()) {
                    log.warn("read split: %s is unavailable (%s), trying %s", location, e.getMessage(), locations.get(i + 1));
                }
            }
        }
        throw new TrinoException(SSTABLE_FLIGHT_UNAVAILABLE, "read split: no location answered: " + String.join("; ", skipped));
    }

    private boolean next()
    {
        try {
            return stream.next();
        }
        catch (FlightRuntimeException e) {
            // Rows of this split already went to Trino: reading elsewhere could repeat them.
            throw new TrinoException(SSTABLE_FLIGHT_STREAM_FAILED, "read split from %s: the stream failed after %d rows: %s %s".formatted(streamLocation, completedPositions, e.status().code(), e.getMessage()), e);
        }
    }

    @Override
    public long getCompletedBytes()
    {
        return completedBytes;
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(completedPositions);
    }

    @Override
    public long getReadTimeNanos()
    {
        return readTimeNanos;
    }

    @Override
    public boolean isFinished()
    {
        return finished;
    }

    @Override
    public long getMemoryUsage()
    {
        return stream == null ? 0 : stream.getRoot().getFieldVectors().stream().mapToLong(FieldVector::getBufferSize).sum();
    }

    @Override
    public void close()
    {
        finished = true;
        closeStream();
    }

    private void closeStream()
    {
        if (stream != null) {
            if (!drained) {
                // Stop the server's work on a stream Trino no longer wants (a LIMIT, a failed query).
                try {
                    stream.cancel("query done", null);
                }
                catch (RuntimeException e) {
                    log.debug(e, "cancel stream");
                }
            }
            Closing.quietly(stream, log, "stream of " + streamLocation);
            stream = null;
        }
    }
}
