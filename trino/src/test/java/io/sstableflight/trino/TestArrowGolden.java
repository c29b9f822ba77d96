package io.sstableflight.trino;

import io.sstableflight.trino.corpus.Canon;
import io.sstableflight.trino.corpus.CorpusTable;
import io.sstableflight.trino.corpus.ExpectedTypes;
import io.trino.spi.Page;
import io.trino.spi.type.TypeOperators;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connector's page conversion on exactly what the server sends:
 * testdata/arrow/&lt;table&gt;.arrows is the Arrow IPC stream of SELECT * of
 * each oa corpus table (flightserver.TestArrowGolden keeps the files equal
 * to the server's output), read here with Arrow Java's stream reader,
 * bound and converted batch by batch as the page source does, and every
 * value of every page judged against expected.json, what Cassandra
 * returned over CQL, by the integration suite's Canon. The columns' Trino
 * types are checked against the table docs/trino.md promises
 * (ExpectedTypes). No Trino server is needed.
 */
class TestArrowGolden
        extends CheckedAllocatorTest
{
    private static final Path TESTDATA = Path.of(System.getProperty("sstf.testdata.dir", "../testdata")).toAbsolutePath();
    private static final Path ARROW = TESTDATA.resolve("arrow");
    private static final Path CORPUS = TESTDATA.resolve("corpus/oa/corpus");

    /** Every Arrow type the server emits (docs/types.md) but Null, which only compact-storage tables of nb have. */
    private static final Set<String> SERVER_TYPES = Set.of(
            "Bool", "Int8", "Int16", "Int32", "Int64", "FloatingPoint(SINGLE)", "FloatingPoint(DOUBLE)",
            "Utf8", "Binary", "Timestamp(MILLISECOND, UTC)", "Date(DAY)", "Time(NANOSECOND, 64)",
            "Interval(MONTH_DAY_NANO)", "Extension(arrow.uuid)", "List", "FixedSizeList(3)", "Map(false)", "Struct");

    private final TypeMapping typeMapping = new TypeMapping(TestingIpAddressType.IPADDRESS, new TypeOperators());
    static Stream<String> tables()
            throws IOException
    {
        try (Stream<Path> files = Files.list(ARROW)) {
            List<String> tables = files.map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(".arrows") && !name.endsWith(".count.arrows"))
                    .map(name -> name.substring(0, name.length() - ".arrows".length()))
                    .sorted()
                    .toList();
            assertThat(tables).as("golden streams in %s", ARROW).hasSizeGreaterThanOrEqualTo(17);
            return tables.stream();
        }
    }

    @ParameterizedTest(name = "oa/{0}")
    @MethodSource("tables")
    void everyValueOfEveryPageIsWhatCqlReturned(String name)
            throws IOException
    {
        CorpusTable table = corpusTable(name);
        Canon canon = new Canon(table.udts());
        List<String> expected = Canon.expectedRows(table);

        List<String> actual = new ArrayList<>();
        read(ARROW.resolve(name + ".arrows"), (schema, columns, bound, page) -> {
            assertThat(columns).extracting(SstableFlightColumnHandle::name)
                    .as("columns of %s in CQL's SELECT * order", name)
                    .containsExactlyElementsOf(table.columns().stream().map(CorpusTable.Column::name).toList());
            assertThat(page.getChannelCount()).isEqualTo(columns.size());
            for (int position = 0; position < page.getPositionCount(); position++) {
                List<String> values = new ArrayList<>();
                for (int i = 0; i < columns.size(); i++) {
                    CorpusTable.Column column = table.columns().get(i);
                    Object value = BlockValues.read(bound.mapping(i), page.getBlock(i), position);
                    try {
                        values.add(column.name() + "=" + canon.actual(value, column.type()));
                    }
                    catch (java.sql.SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
                actual.add(String.join(" ", values));
            }
        });
        assertThat(actual).as("pages of %s.arrows", name).containsExactlyInAnyOrderElementsOf(expected);
    }

    @ParameterizedTest(name = "oa/{0}")
    @MethodSource("tables")
    void typesAreTheDocumentedOnes(String name)
            throws IOException
    {
        CorpusTable table = corpusTable(name);
        try (InputStream in = Files.newInputStream(ARROW.resolve(name + ".arrows"));
                ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
            List<SstableFlightColumnHandle> columns = columns(reader.getVectorSchemaRoot().getSchema());
            for (int i = 0; i < columns.size(); i++) {
                SstableFlightColumnHandle column = columns.get(i);
                assertThat(column.unsupported()).as("%s.%s maps", name, column.name()).isEmpty();
                assertThat(column.type().getDisplayName()).as("Trino type of %s.%s (cql %s)", name, column.name(), column.cqlType())
                        .isEqualTo(ExpectedTypes.trino(table.columns().get(i).type(), table.udts()));
            }
        }
    }

    @Test
    void aCountOnlyStreamGivesPagesOfRowsWithNoBlocks()
            throws IOException
    {
        CorpusTable table = corpusTable("clustered");
        long[] rows = {0};
        int[] pages = {0};
        read(ARROW.resolve("clustered.count.arrows"), (schema, columns, bound, page) -> {
            assertThat(schema.getFields()).as("a count-only stream's schema").isEmpty();
            assertThat(page.getChannelCount()).isZero();
            rows[0] += page.getPositionCount();
            pages[0]++;
        });
        assertThat(pages[0]).isPositive();
        assertThat(rows[0]).isEqualTo(table.rows().size());
    }

    @Test
    void theGoldenStreamsHoldEveryArrowTypeTheServerEmits()
            throws IOException
    {
        Set<String> seen = new TreeSet<>();
        try (Stream<Path> files = Files.list(ARROW)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".arrows")).toList()) {
                try (InputStream in = Files.newInputStream(file);
                        ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
                    reader.getVectorSchemaRoot().getSchema().getFields().forEach(field -> record(field, seen::add));
                }
            }
        }
        assertThat(seen).as("Arrow types of the golden streams").containsExactlyInAnyOrderElementsOf(SERVER_TYPES);
    }

    private interface PageCheck
    {
        void check(Schema schema, List<SstableFlightColumnHandle> columns, BoundColumns bound, Page page);
    }

    /** Binds a golden stream's schema as the page source does and hands each batch's page to {@code check}. */
    private void read(Path file, PageCheck check)
            throws IOException
    {
        try (InputStream in = Files.newInputStream(file);
                ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            Schema schema = root.getSchema();
            List<SstableFlightColumnHandle> columns = file.getFileName().toString().endsWith(".count.arrows") ? List.of() : columns(schema);
            BoundColumns bound = BoundColumns.bind(schema.getFields(), columns, typeMapping, file.toString());
            int batches = 0;
            while (reader.loadNextBatch()) {
                check.check(schema, columns, bound, bound.toPage(root));
                batches++;
            }
            assertThat(batches).as("batches in %s", file).isPositive();
        }
    }

    /** The columns as SstableFlightMetadata makes them from a stream's schema. */
    private List<SstableFlightColumnHandle> columns(Schema schema)
    {
        List<SstableFlightColumnHandle> columns = new ArrayList<>();
        for (Field field : schema.getFields()) {
            Map<String, String> metadata = Optional.ofNullable(field.getMetadata()).orElse(Map.of());
            columns.add(SstableFlightColumnHandle.of(field.getName(), metadata.getOrDefault(TypeMapping.CQL_TYPE, "unknown"), metadata.getOrDefault(TypeMapping.CQL_KIND, "regular"), typeMapping.map(field)));
        }
        return columns;
    }

    private static void record(Field field, Consumer<String> seen)
    {
        // Arrow Java reads an extension it has not registered (arrow.uuid) as its storage type, the name kept in the metadata.
        String extension = Optional.ofNullable(field.getMetadata()).map(m -> m.get("ARROW:extension:name")).orElse(null);
        seen.accept(extension != null ? "Extension(" + extension + ")" : typeName(field.getType()));
        field.getChildren().forEach(child -> record(child, seen));
    }

    private static String typeName(ArrowType type)
    {
        return switch (type) {
            case ArrowType.Int i -> "Int" + i.getBitWidth();
            case ArrowType.FloatingPoint f -> "FloatingPoint(" + f.getPrecision() + ")";
            case ArrowType.Timestamp t -> "Timestamp(" + t.getUnit() + ", " + t.getTimezone() + ")";
            case ArrowType.Date d -> "Date(" + d.getUnit() + ")";
            case ArrowType.Time t -> "Time(" + t.getUnit() + ", " + t.getBitWidth() + ")";
            case ArrowType.Interval i -> "Interval(" + i.getUnit() + ")";
            case ArrowType.FixedSizeList l -> "FixedSizeList(" + l.getListSize() + ")";
            case ArrowType.Map m -> "Map(" + m.getKeysSorted() + ")";
            case ArrowType.ExtensionType e -> "Extension(" + e.extensionName() + ")";
            case ArrowType.FixedSizeBinary b -> "FixedSizeBinary(" + b.getByteWidth() + ")";
            default -> type.getTypeID().name();
        };
    }

    private static CorpusTable corpusTable(String name)
            throws IOException
    {
        try (Stream<Path> dirs = Files.list(CORPUS)) {
            Path dir = dirs.filter(d -> d.getFileName().toString().startsWith(name + "-") && Files.isRegularFile(d.resolve("expected.json")))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no corpus table %s under %s".formatted(name, CORPUS)));
            return CorpusTable.load(dir, "oa");
        }
    }
}
