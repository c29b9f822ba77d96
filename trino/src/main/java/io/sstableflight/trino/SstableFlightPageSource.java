package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_BAD_DATA;
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
    private int[] vectorIndex;
    private List<ColumnMapping> mappings;
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
        int rows = root.getRowCount();
        Block[] blocks = new Block[columns.size()];
        for (int i = 0; i < blocks.length; i++) {
            FieldVector vector = root.getVector(vectorIndex[i]);
            completedBytes += vector.getBufferSize();
            blocks[i] = ArrowBlocks.toBlock(vector, mappings.get(i), columns.get(i).name());
        }
        if (blocks.length == 0) {
            // count(*) and the like: rows, no values (the server still sends them; issue #16 asks for a count-only read).
            for (FieldVector vector : root.getFieldVectors()) {
                completedBytes += vector.getBufferSize();
            }
        }
        completedPositions += rows;
        return SourcePage.create(new Page(rows, blocks));
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
                bind(candidate.getRoot().getSchema().getFields());
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

    /** Finds each requested column in the stream's schema and checks it still maps to the planned type. */
    private void bind(List<Field> fields)
    {
        vectorIndex = new int[columns.size()];
        ImmutableList.Builder<ColumnMapping> bound = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            SstableFlightColumnHandle column = columns.get(i);
            int index = -1;
            for (int f = 0; f < fields.size(); f++) {
                if (fields.get(f).getName().equals(column.name())) {
                    index = f;
                    break;
                }
            }
            if (index < 0) {
                throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "read split from %s: the stream has no column %s (the table changed since planning)".formatted(streamLocation, column.name()));
            }
            ColumnMapping mapping = typeMapping.map(fields.get(index));
            if (!mapping.isSupported() || !mapping.type().orElseThrow().equals(column.type())) {
                throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "read split from %s: column %s is now %s, planned as %s (the table changed since planning)".formatted(
                        streamLocation, column.name(), mapping.type().map(Object::toString).orElse("unmapped"), column.type()));
            }
            vectorIndex[i] = index;
            bound.add(mapping);
        }
        mappings = bound.build();
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
