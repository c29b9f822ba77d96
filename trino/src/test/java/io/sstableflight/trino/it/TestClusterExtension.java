package io.sstableflight.trino.it;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Puts the one {@link TestCluster} in JUnit's root store, so JUnit closes it
 * (stopping Trino and the servers) when the whole run ends, passed or failed.
 */
public final class TestClusterExtension
        implements BeforeAllCallback
{
    @Override
    public void beforeAll(ExtensionContext context)
    {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(TestCluster.class, _ -> TestCluster.get(), TestCluster.class);
    }
}
