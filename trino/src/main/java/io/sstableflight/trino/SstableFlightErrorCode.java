package io.sstableflight.trino;

import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;

import static io.trino.spi.ErrorType.EXTERNAL;
import static io.trino.spi.ErrorType.INSUFFICIENT_RESOURCES;
import static io.trino.spi.ErrorType.INTERNAL_ERROR;
import static io.trino.spi.ErrorType.USER_ERROR;

/** Every failure of this connector a Trino user can see, each with its own code. */
public enum SstableFlightErrorCode
        implements ErrorCodeSupplier
{
    /** A server answered an RPC with an error other than UNAVAILABLE. */
    SSTABLE_FLIGHT_SERVER_ERROR(0, EXTERNAL),
    /** No location of a split, or no seed server, could be reached. */
    SSTABLE_FLIGHT_UNAVAILABLE(1, EXTERNAL),
    /** A stream broke after rows of it were handed to Trino: the query fails rather than lose or repeat rows. */
    SSTABLE_FLIGHT_STREAM_FAILED(2, EXTERNAL),
    /** The server sent data that does not fit the column's type (a schema change between planning and reading). */
    SSTABLE_FLIGHT_BAD_DATA(3, EXTERNAL),
    /** A query selected a column whose CQL type has no Trino mapping yet. */
    SSTABLE_FLIGHT_UNSUPPORTED_COLUMN(4, USER_ERROR),
    /** The JVM lacks an option Arrow needs (docs/trino.md). */
    SSTABLE_FLIGHT_JVM_OPTIONS(5, INTERNAL_ERROR),
    /** The catalog file names something unusable (a token file that holds no token). */
    SSTABLE_FLIGHT_CONFIG(6, USER_ERROR),
    /** A split's stream needed more Arrow memory than sstable-flight.split-memory-limit (or the catalog's memory-limit) allows. */
    SSTABLE_FLIGHT_MEMORY_LIMIT(7, INSUFFICIENT_RESOURCES);

    private final ErrorCode errorCode;

    SstableFlightErrorCode(int code, ErrorType type)
    {
        // 0x0515_0000: a block no Trino connector uses, so our codes are told from theirs.
        errorCode = new ErrorCode(code + 0x0515_0000, name(), type);
    }

    @Override
    public ErrorCode toErrorCode()
    {
        return errorCode;
    }
}
