package io.sstableflight.trino;

import io.sstableflight.trino.corpus.CorpusTable;
import io.sstableflight.trino.corpus.RawJson;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static io.trino.spi.type.DecimalType.createDecimalType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code sstable-flight.decimal-mapping=DECIMAL} on exactly what the server
 * sends: the decimal column of the oa corpus' all_types table
 * (testdata/arrow/all_types.arrows, kept equal to the server's output by
 * flightserver.TestArrowGolden), bound and converted batch by batch as the
 * page source does, against what Cassandra returned over CQL
 * (expected.json) set to the column's scale by BigDecimal. Its values are
 * hard ones: 39 digits (30 before the point), -1E-21, 1E+10, 36 digits of
 * pi, zero with a scale, nulls. A DECIMAL(p, s) that holds them all reads
 * each one rounded; one that does not fails at the first value it cannot
 * hold, naming column, row and value.
 */
class TestArrowGoldenDecimal
        extends CheckedAllocatorTest
{
    private static final Path TESTDATA = Path.of(System.getProperty("sstf.testdata.dir", "../testdata")).toAbsolutePath();
    private static final Path STREAM = TESTDATA.resolve("arrow/all_types.arrows");
    private static final String COLUMN = "c_decimal";

    @ParameterizedTest(name = "DECIMAL({0}, {1}) {2}")
    @CsvSource({
            // Hold every value: 30 digits before the point fit 38 - 8, and 38 - 0.
            "38, 8, HALF_UP",
            "38, 8, HALF_EVEN",
            "38, 0, FLOOR",
            "38, 0, CEILING",
            "38, 8, DOWN",
            // Fail: values with more scale under UNNECESSARY, 30 digits before the point in DECIMAL(18, 8) or DECIMAL(38, 9).
            "38, 8, UNNECESSARY",
            "18, 8, HALF_UP",
            "38, 9, HALF_UP",
            "38, 38, UP",
    })
    void everyValueIsCqlsRoundedOrTheFirstThatDoesNotFitFails(int precision, int scale, RoundingMode mode)
            throws IOException
    {
        Map<Integer, BigDecimal> cql = expected();
        DecimalType type = createDecimalType(precision, scale);
        BigInteger limit = BigInteger.TEN.pow(precision);

        // Row by row, in the stream's order, what BigDecimal makes of each CQL value: the first that cannot be had fails its batch.
        List<List<Integer>> batches = ids();
        Optional<String> failure = Optional.empty();
        Map<Integer, BigDecimal> rounded = new HashMap<>();
        for (List<Integer> batch : batches) {
            for (int row = 0; row < batch.size() && failure.isEmpty(); row++) {
                BigDecimal value = cql.get(batch.get(row));
                if (value == null) {
                    continue;
                }
                String doesNotFit = "column %s, row %d: decimal %s does not fit %s".formatted(COLUMN, row, value, type.getDisplayName());
                // More digits before the point than p - s fail whatever the rounding.
                if (value.signum() != 0 && value.precision() - value.scale() > precision - scale) {
                    failure = Optional.of(doesNotFit);
                    continue;
                }
                try {
                    BigDecimal set = value.setScale(scale, mode);
                    if (set.unscaledValue().abs().compareTo(limit) >= 0) {
                        failure = Optional.of(doesNotFit);
                    }
                    rounded.put(batch.get(row), set);
                }
                catch (ArithmeticException e) {
                    failure = Optional.of("column %s, row %d: decimal %s has more digits after the point than %s holds".formatted(COLUMN, row, value, type.getDisplayName()));
                }
            }
        }

        TypeMapping mapping = new TypeMapping(TestingIpAddressType.IPADDRESS, new TypeOperators(), Optional.of(type), mode);
        if (failure.isPresent()) {
            assertThatThrownBy(() -> read(mapping))
                    .isInstanceOf(TrinoException.class)
                    .hasMessageStartingWith(failure.get());
            return;
        }
        Map<Integer, BigDecimal> actual = read(mapping);
        assertThat(actual.keySet()).isEqualTo(cql.keySet());
        assertThat(actual.values()).as("decimals read").filteredOn(java.util.Objects::nonNull).hasSize(6);
        for (Map.Entry<Integer, BigDecimal> row : actual.entrySet()) {
            BigDecimal expected = rounded.get(row.getKey());
            assertThat(row.getValue()).as("id %d: %s", row.getKey(), cql.get(row.getKey())).isEqualTo(expected);
        }
    }

    /** c_decimal of every row of the stream by id, read through the connector as DECIMAL. */
    private Map<Integer, BigDecimal> read(TypeMapping mapping)
            throws IOException
    {
        Map<Integer, BigDecimal> values = new HashMap<>();
        stream(mapping, (bound, page) -> {
            for (int position = 0; position < page.getPositionCount(); position++) {
                Integer id = (Integer) BlockValues.read(bound.mapping(0), page.getBlock(0), position);
                BigDecimal value = (BigDecimal) BlockValues.read(bound.mapping(1), page.getBlock(1), position);
                assertThat(bound.mapping(1).kind()).isEqualTo(ColumnMapping.Kind.DECIMAL);
                values.put(id, value);
            }
        });
        return values;
    }

    /** The ids of the stream's rows, batch by batch, in order. */
    private List<List<Integer>> ids()
            throws IOException
    {
        List<List<Integer>> batches = new ArrayList<>();
        stream(new TypeMapping(TestingIpAddressType.IPADDRESS, new TypeOperators()), (bound, page) -> {
            List<Integer> ids = new ArrayList<>();
            for (int position = 0; position < page.getPositionCount(); position++) {
                ids.add((Integer) BlockValues.read(bound.mapping(0), page.getBlock(0), position));
            }
            batches.add(ids);
        });
        return batches;
    }

    private interface PageCheck
    {
        void check(BoundColumns bound, Page page);
    }

    private void stream(TypeMapping mapping, PageCheck check)
            throws IOException
    {
        try (InputStream in = Files.newInputStream(STREAM);
                ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            Schema schema = root.getSchema();
            List<SstableFlightColumnHandle> columns = Stream.of("id", COLUMN)
                    .map(name -> {
                        Field field = schema.findField(name);
                        return SstableFlightColumnHandle.of(name, field.getMetadata().get(TypeMapping.CQL_TYPE), "regular", mapping.map(field));
                    })
                    .toList();
            BoundColumns bound = BoundColumns.bind(schema.getFields(), columns, mapping, STREAM.toString());
            while (reader.loadNextBatch()) {
                check.check(bound, bound.toPage(root));
            }
        }
    }

    /** c_decimal of expected.json by id (null where CQL returned null). */
    private static Map<Integer, BigDecimal> expected()
            throws IOException
    {
        Path corpus = TESTDATA.resolve("corpus/oa/corpus");
        Path dir;
        try (Stream<Path> dirs = Files.list(corpus)) {
            dir = dirs.filter(d -> d.getFileName().toString().startsWith("all_types-")).findFirst().orElseThrow();
        }
        Map<Integer, BigDecimal> values = new HashMap<>();
        for (Map<String, Object> row : CorpusTable.load(dir, "oa").rows()) {
            Object value = row.get(COLUMN);
            values.put(Integer.parseInt(((RawJson.Number) row.get("id")).text()), value == null ? null : new BigDecimal((String) value));
        }
        assertThat(values.values()).as("the corpus' decimals").contains(new BigDecimal("1e10"), new BigDecimal("-1e-21"), null);
        return values;
    }
}
