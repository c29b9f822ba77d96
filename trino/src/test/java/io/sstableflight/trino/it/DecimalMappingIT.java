package io.sstableflight.trino.it;

import io.sstableflight.trino.corpus.CorpusTable;
import io.sstableflight.trino.corpus.RawJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code sstable-flight.decimal-mapping=DECIMAL} through a real Trino, on
 * the oa corpus' decimals (39 digits, -1E-21, 1E+10, 36 digits of pi,
 * zero with a scale, nulls): catalog sstable_oa_decimal (DECIMAL(38, 8),
 * HALF_UP) describes the column as that type, returns every value as CQL's
 * rounded half up to 8 places, and sums and orders it as a number, as a BI
 * tool's query does; catalog sstable_oa_decimal_exact (DECIMAL(38, 10),
 * UNNECESSARY) fails the query naming column, row and value at -1E-21,
 * which it cannot hold without rounding.
 */
@ExtendWith(TestClusterExtension.class)
class DecimalMappingIT
{
    private static final String TABLE = "corpus.all_types";

    @Test
    void decimalsAreNumbersTrinoSumsAndOrders()
            throws Exception
    {
        Map<Integer, BigDecimal> expected = expected();
        try (Connection connection = TestCluster.get().connect(); Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("DESCRIBE sstable_oa_decimal." + TABLE)) {
                Map<String, String> types = new HashMap<>();
                while (rows.next()) {
                    types.put(rows.getString("Column"), rows.getString("Type"));
                }
                assertThat(types).containsEntry("c_decimal", "decimal(38,8)");
            }

            Map<Integer, BigDecimal> actual = new HashMap<>();
            try (ResultSet rows = statement.executeQuery("SELECT id, c_decimal FROM sstable_oa_decimal." + TABLE)) {
                while (rows.next()) {
                    actual.put(rows.getInt(1), rows.getBigDecimal(2));
                }
            }
            assertThat(actual).isEqualTo(expected);

            BigDecimal sum = expected.values().stream().filter(Objects::nonNull).reduce(BigDecimal.ZERO, BigDecimal::add);
            try (ResultSet rows = statement.executeQuery("SELECT sum(c_decimal), max(c_decimal), count(c_decimal) FROM sstable_oa_decimal." + TABLE)) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getBigDecimal(1)).isEqualTo(sum);
                assertThat(rows.getBigDecimal(2)).isEqualTo(expected.values().stream().filter(Objects::nonNull).max(BigDecimal::compareTo).orElseThrow());
                assertThat(rows.getLong(3)).isEqualTo(expected.values().stream().filter(Objects::nonNull).count());
            }

            List<BigDecimal> ordered = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT c_decimal FROM sstable_oa_decimal.%s WHERE c_decimal IS NOT NULL ORDER BY c_decimal".formatted(TABLE))) {
                while (rows.next()) {
                    ordered.add(rows.getBigDecimal(1));
                }
            }
            assertThat(ordered).as("ORDER BY c_decimal, a number's order").isSortedAccordingTo(BigDecimal::compareTo);
            assertThat(ordered).containsExactlyInAnyOrderElementsOf(expected.values().stream().filter(Objects::nonNull).toList());
        }
    }

    @Test
    void aValueTheTypeCannotHoldWithoutRoundingFailsTheQuery()
            throws Exception
    {
        try (Connection connection = TestCluster.get().connect(); Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> {
                try (ResultSet rows = statement.executeQuery("SELECT c_decimal FROM sstable_oa_decimal_exact." + TABLE)) {
                    while (rows.next()) {
                        rows.getBigDecimal(1);
                    }
                }
            })
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("column c_decimal, row ")
                    .hasMessageContaining("decimal -1E-21 has more digits after the point than decimal(38,10) holds (10), and sstable-flight.decimal-rounding-mode is UNNECESSARY");
        }
    }

    /** c_decimal of the oa corpus' all_types by id, as CQL returned it, set to scale 8 half up. */
    private static Map<Integer, BigDecimal> expected()
            throws IOException
    {
        Path corpus = TestCluster.get().modeDir("oa").resolve("corpus");
        Path dir;
        try (Stream<Path> dirs = Files.list(corpus)) {
            dir = dirs.filter(d -> d.getFileName().toString().startsWith("all_types-")).findFirst().orElseThrow();
        }
        Map<Integer, BigDecimal> values = new HashMap<>();
        for (Map<String, Object> row : CorpusTable.load(dir, "oa").rows()) {
            Object value = row.get("c_decimal");
            values.put(Integer.parseInt(((RawJson.Number) row.get("id")).text()), value == null ? null : new BigDecimal((String) value).setScale(8, RoundingMode.HALF_UP));
        }
        return values;
    }
}
