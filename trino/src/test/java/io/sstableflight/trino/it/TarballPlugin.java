package io.sstableflight.trino.it;

import com.google.inject.Key;
import io.trino.metadata.HandleResolver;
import io.trino.server.PluginClassLoader;
import io.trino.server.PluginManager;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.spi.Plugin;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.testing.DistributedQueryRunner;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * Installs one of Trino 476's own plugins, from the server tarball's
 * {@code plugin/<name>/}, into a query runner in this JVM, in a class
 * loader of its own as the server loads it: Trino publishes no jar of its
 * plugins to Maven Central, and on the test classpath their libraries
 * (the cassandra plugin's DataStax driver and Netty 4.2.1) would meet the
 * connector's own. Each node's handle resolver learns the class loader,
 * so the plugin's handles cross from coordinator to workers as in a
 * server.
 */
final class TarballPlugin
{
    private TarballPlugin() {}

    static void install(DistributedQueryRunner runner, Path trinoHome, String name)
            throws IOException
    {
        Path dir = trinoHome.resolve("plugin").resolve(name);
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path jar : files.filter(file -> file.getFileName().toString().endsWith(".jar")).sorted().toList()) {
                jars.add(url(jar));
            }
        }
        if (jars.isEmpty()) {
            throw new IllegalStateException("no jars in %s: is %s Trino 476's server (deploy/local/install-trino.sh)?".formatted(dir, trinoHome));
        }
        PluginClassLoader loader = PluginManager.createClassLoader(name, jars);
        List<Plugin> plugins = ServiceLoader.load(Plugin.class, loader).stream().map(ServiceLoader.Provider::get).toList();
        if (plugins.size() != 1) {
            throw new IllegalStateException("%s holds %d plugins, expected one: %s".formatted(dir, plugins.size(), plugins));
        }
        for (TestingTrinoServer server : runner.getServers()) {
            server.getInstance(Key.get(HandleResolver.class)).registerClassLoader(loader);
        }
        try (ThreadContextClassLoader _ = new ThreadContextClassLoader(loader)) {
            runner.installPlugin(plugins.getFirst());
        }
    }

    private static URL url(Path jar)
    {
        try {
            return jar.toUri().toURL();
        }
        catch (MalformedURLException e) {
            throw new IllegalArgumentException("plugin jar " + jar, e);
        }
    }
}
