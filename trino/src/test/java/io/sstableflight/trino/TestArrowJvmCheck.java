package io.sstableflight.trino;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog start check in real JVMs: one started as a Trino without our
 * jvm.config lines would be, and one with them (this suite's own options).
 */
class TestArrowJvmCheck
{
    @Test
    void withoutTheOptionsTheCatalogNamesBothLines()
            throws Exception
    {
        String out = probe(List.of());
        assertThat(out).startsWith("SSTABLE_FLIGHT_JVM_OPTIONS: catalog probe: ")
                .contains("etc/jvm.config")
                .contains(ArrowJvmCheck.OPEN_NIO)
                .contains(ArrowJvmCheck.ALLOW_UNSAFE);
    }

    @Test
    void withOnlyAddOpensTheUnsafeLineIsNamed()
            throws Exception
    {
        String out = probe(List.of(ArrowJvmCheck.OPEN_NIO));
        assertThat(out).contains(ArrowJvmCheck.ALLOW_UNSAFE).doesNotContain(ArrowJvmCheck.OPEN_NIO);
    }

    @Test
    void withBothOptionsTheCheckPasses()
            throws Exception
    {
        assertThat(probe(List.of(ArrowJvmCheck.OPEN_NIO, ArrowJvmCheck.ALLOW_UNSAFE))).isEqualTo("OK");
        assertThat(ArrowJvmCheck.missingOptions()).as("this suite runs with both options").isEmpty();
    }

    private static String probe(List<String> options)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JvmCheckProbe.class.getName());
        Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
        String out = new String(process.getInputStream().readAllBytes(), UTF_8).strip();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
