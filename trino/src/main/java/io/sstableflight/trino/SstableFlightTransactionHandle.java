package io.sstableflight.trino;

import io.trino.spi.connector.ConnectorTransactionHandle;

/** The connector is read-only and reads snapshots the server fixes per query, so one transaction handle serves all. */
public enum SstableFlightTransactionHandle
        implements ConnectorTransactionHandle
{
    INSTANCE
}
