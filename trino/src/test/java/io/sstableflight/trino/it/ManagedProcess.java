package io.sstableflight.trino.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A child process the suite started: its output goes to a log file, its pid
 * to {@code <work>/pids/<name>.pid} so deploy/local/trino-test.sh can end it
 * should this JVM die without running its shutdown hook (kill -9, a crash).
 */
final class ManagedProcess
        implements AutoCloseable
{
    private final String name;
    private final Process process;
    private final Path log;
    private final Path pidFile;

    private ManagedProcess(String name, Process process, Path log, Path pidFile)
    {
        this.name = name;
        this.process = process;
        this.log = log;
        this.pidFile = pidFile;
    }

    static ManagedProcess start(String name, List<String> command, Map<String, String> environment, Path workDir)
            throws IOException
    {
        Path logs = Files.createDirectories(workDir.resolve("logs"));
        Path pids = Files.createDirectories(workDir.resolve("pids"));
        Path log = logs.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        Path pidFile = pids.resolve(name + ".pid");
        Files.writeString(pidFile, Long.toString(process.pid()), UTF_8);
        return new ManagedProcess(name, process, log, pidFile);
    }

    boolean isAlive()
    {
        return process.isAlive();
    }

    /** The last lines of the process' output, for failure messages. */
    String tail()
    {
        try {
            List<String> lines = Files.readAllLines(log, UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
        catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    String name()
    {
        return name;
    }

    Path log()
    {
        return log;
    }

    /** SIGKILL, as a crash: the process gets no chance to end its streams. */
    void kill()
    {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGSTOP: the process stops answering while its sockets stay open (the kernel still accepts and acknowledges). */
    void stop()
    {
        signal("STOP");
    }

    /** SIGCONT, after {@link #stop()}. */
    void resume()
    {
        signal("CONT");
    }

    private void signal(String signal)
    {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -%s %s (%d) failed".formatted(signal, name, process.pid()));
            }
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException("kill -%s %s".formatted(signal, name), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("kill -%s %s: interrupted".formatted(signal, name), e);
        }
    }

    /** SIGTERM, then SIGKILL if it has not exited within the grace. */
    @Override
    public void close()
    {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        if (!process.isAlive()) {
            try {
                Files.deleteIfExists(pidFile);
            }
            catch (IOException ignored) {
                // The script's clean-up finds the pid dead and removes the file.
            }
        }
    }
}
