package io.sstableflight.trino;

import io.airlift.log.Logger;

/** Closing what holds gRPC channels or streams at the end of its use, where a failure to close must not hide the result. */
final class Closing
{
    private Closing() {}

    /** Closes, logging a failure; an interrupt is kept for the caller's thread. */
    static void quietly(AutoCloseable closeable, Logger log, String what)
    {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        catch (Exception e) {
            log.warn(e, "close %s", what);
        }
    }
}
