package io.sstableflight.trino;

import io.trino.spi.TrinoException;

import java.nio.ByteBuffer;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_JVM_OPTIONS;

/**
 * Arrow's allocator reads a private field of java.nio.Buffer (the address of
 * a direct buffer). Since Java 17 that needs {@code --add-opens}; without it
 * Arrow fails deep inside the first read with a message that names neither
 * the option nor the file (a peer's users saw only "Failed to read
 * message"). Checking the module graph at catalog start says exactly what
 * to add to etc/jvm.config.
 */
final class ArrowJvmCheck
{
    static final String REQUIRED_OPTION = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    private ArrowJvmCheck() {}

    static void require(String catalogName)
    {
        if (!javaNioIsOpen()) {
            throw new TrinoException(SSTABLE_FLIGHT_JVM_OPTIONS, missingOptionMessage(catalogName));
        }
    }

    /** NB: the plugin's classes, Arrow's included, live in its class loader's unnamed module. */
    static boolean javaNioIsOpen()
    {
        return ByteBuffer.class.getModule().isOpen("java.nio", ArrowJvmCheck.class.getModule());
    }

    static String missingOptionMessage(String catalogName)
    {
        return "catalog " + catalogName + ": the JVM does not open java.nio to the sstable_flight plugin, which Arrow's memory allocator needs; "
                + "add this line to Trino's etc/jvm.config and restart: " + REQUIRED_OPTION;
    }
}
