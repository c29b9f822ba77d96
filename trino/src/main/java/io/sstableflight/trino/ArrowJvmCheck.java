package io.sstableflight.trino;

import io.netty.util.internal.PlatformDependent;
import io.trino.spi.TrinoException;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_JVM_OPTIONS;

/**
 * The JVM options Arrow's Netty allocator needs on Java 24+, checked when a
 * catalog starts. Without them Arrow fails deep inside the first read with a
 * message naming neither option (a peer's users saw only "Failed to read
 * message"); here Trino refuses the catalog naming the lines to add to
 * etc/jvm.config:
 *
 * <ul>
 * <li>{@code --add-opens=java.base/java.nio=ALL-UNNAMED}: Arrow reads the
 * address of a direct buffer from a private field of java.nio.Buffer.</li>
 * <li>{@code --sun-misc-unsafe-memory-access=allow}: from Java 24 on Netty
 * (whose pooled direct buffers Arrow allocates from) refuses sun.misc.Unsafe
 * unless memory access through it is allowed, and Arrow's allocator cannot
 * start without it.</li>
 * </ul>
 */
final class ArrowJvmCheck
{
    static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    static final String ALLOW_UNSAFE = "--sun-misc-unsafe-memory-access=allow";

    private ArrowJvmCheck() {}

    static void require(String catalogName)
    {
        List<String> missing = missingOptions();
        if (!missing.isEmpty()) {
            throw new TrinoException(SSTABLE_FLIGHT_JVM_OPTIONS, missingOptionsMessage(catalogName, missing));
        }
    }

    /** The options this JVM lacks, in the order jvm.config should list them. */
    static List<String> missingOptions()
    {
        List<String> missing = new ArrayList<>();
        // NB: the plugin's classes, Arrow's and Netty's included, live in its class loader's unnamed module.
        if (!ByteBuffer.class.getModule().isOpen("java.nio", ArrowJvmCheck.class.getModule())) {
            missing.add(OPEN_NIO);
        }
        if (!PlatformDependent.hasUnsafe()) {
            missing.add(ALLOW_UNSAFE);
        }
        return missing;
    }

    static String missingOptionsMessage(String catalogName, List<String> missing)
    {
        String cause = PlatformDependent.hasUnsafe() ? "" : " (Netty: " + PlatformDependent.getUnsafeUnavailabilityCause() + ")";
        return "catalog %s: the JVM lacks what Arrow's memory allocator needs%s; add these lines to Trino's etc/jvm.config and restart: %s"
                .formatted(catalogName, cause, String.join(" ", missing));
    }
}
