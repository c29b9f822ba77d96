package io.sstableflight.trino.it;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;

/**
 * CQL written through one of Trino's cassandra catalogs, so the suite needs
 * no CQL driver of its own: statements through the connector's
 * {@code system.execute} procedure, rows through INSERT ... SELECT.
 */
final class CqlThroughTrino
{
    private CqlThroughTrino() {}

    /** Runs one CQL statement through {@code catalog}'s {@code system.execute}. */
    static void execute(Connection trino, String catalog, String cql)
            throws SQLException
    {
        try (Statement statement = trino.createStatement()) {
            statement.execute("CALL %s.system.execute('%s')".formatted(catalog, cql.replace("'", "''")));
        }
        catch (SQLException e) {
            throw new SQLException("execute CQL through the %s catalog: %s: %s".formatted(catalog, e.getMessage(), cql), e);
        }
    }

    /**
     * Runs an INSERT into a table of a cassandra catalog. The catalog's
     * metadata may not show a table created a moment ago through
     * {@link #execute}, so a missing table is retried for up to a minute.
     */
    static void insert(Connection trino, String sql)
            throws SQLException, InterruptedException
    {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try (Statement statement = trino.createStatement()) {
                statement.execute(sql);
                return;
            }
            catch (SQLException e) {
                if (System.nanoTime() > deadline || Optional.ofNullable(e.getMessage()).filter(m -> m.contains("does not exist")).isEmpty()) {
                    throw new SQLException("write through Trino: %s: %s".formatted(e.getMessage(), sql), e);
                }
                Thread.sleep(1000);
            }
        }
    }
}
