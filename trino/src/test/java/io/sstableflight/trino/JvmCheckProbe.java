package io.sstableflight.trino;

import io.trino.spi.TrinoException;

/** Run in a child JVM by TestArrowJvmCheck: prints what the catalog start check says. */
public final class JvmCheckProbe
{
    private JvmCheckProbe() {}

    public static void main(String[] args)
    {
        try {
            ArrowJvmCheck.require("probe");
            System.out.println("OK");
        }
        catch (TrinoException e) {
            System.out.println(e.getErrorCode().getName() + ": " + e.getMessage());
        }
    }
}
