package io.sstableflight.trino.it;

import io.trino.jdbc.QueryStats;
import io.trino.jdbc.TrinoResultSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the page source reports reaches Trino's query statistics: the rows
 * and the bytes read from the servers (a peer's connector reported zeros,
 * which leaves Trino's cost and progress blind).
 */
@ExtendWith(TestClusterExtension.class)
class PageSourceIT
{
    @Test
    void physicalInputIsReported()
            throws SQLException
    {
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT * FROM sstable_oa.corpus.wide")) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            QueryStats stats = rs.unwrap(TrinoResultSet.class).getStats();
            assertThat(rows).isEqualTo(825);
            assertThat(stats.getProcessedRows()).as("processed rows").isEqualTo(825);
            // 825 rows of a ~100-byte text and two ints: well over 80 kB of Arrow buffers.
            assertThat(stats.getPhysicalInputBytes()).as("physical input bytes").isGreaterThan(80_000);
            assertThat(stats.getPhysicalInputBytes()).as("processed bytes are the physical input bytes").isEqualTo(stats.getProcessedBytes());
        }
    }
}
