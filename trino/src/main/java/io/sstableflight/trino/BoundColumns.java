package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

import java.util.List;

import static io.sstableflight.trino.SstableFlightErrorCode.SSTABLE_FLIGHT_BAD_DATA;
import static java.util.Objects.requireNonNull;

/**
 * The columns a query reads, bound to the schema of one stream: where each
 * is in the record batches and how it converts. A stream's schema is
 * checked against the plan once, when it opens; then every batch becomes
 * one page, a column at a time (ArrowBlocks). The page copies what it
 * needs, so the batch's Arrow buffers may be reused or freed as soon as
 * {@link #toPage} returns.
 */
final class BoundColumns
{
    private final List<SstableFlightColumnHandle> columns;
    private final int[] vectorIndex;
    private final List<ColumnMapping> mappings;

    private BoundColumns(List<SstableFlightColumnHandle> columns, int[] vectorIndex, List<ColumnMapping> mappings)
    {
        this.columns = columns;
        this.vectorIndex = vectorIndex;
        this.mappings = mappings;
    }

    /**
     * Finds each column in a stream's fields and checks it still maps to
     * the planned type; {@code source} names the stream in errors.
     */
    static BoundColumns bind(List<Field> fields, List<SstableFlightColumnHandle> columns, TypeMapping typeMapping, String source)
    {
        requireNonNull(typeMapping, "typeMapping is null");
        int[] vectorIndex = new int[columns.size()];
        ImmutableList.Builder<ColumnMapping> bound = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            SstableFlightColumnHandle column = columns.get(i);
            int index = -1;
            for (int f = 0; f < fields.size(); f++) {
                if (fields.get(f).getName().equals(column.name())) {
                    index = f;
                    break;
                }
            }
            if (index < 0) {
                throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "read split from %s: the stream has no column %s (the table changed since planning)".formatted(source, column.name()));
            }
            ColumnMapping mapping = typeMapping.map(fields.get(index));
            if (!mapping.isSupported() || !mapping.type().orElseThrow().equals(column.type())) {
                throw new TrinoException(SSTABLE_FLIGHT_BAD_DATA, "read split from %s: column %s is now %s, planned as %s (the table changed since planning)".formatted(
                        source, column.name(), mapping.type().map(Object::toString).orElse("unmapped"), column.type()));
            }
            vectorIndex[i] = index;
            bound.add(mapping);
        }
        return new BoundColumns(ImmutableList.copyOf(columns), vectorIndex, bound.build());
    }

    /** The page of the batch the root holds: one block per column, or only a position count when no column is read. */
    Page toPage(VectorSchemaRoot root)
    {
        int rows = root.getRowCount();
        Block[] blocks = new Block[columns.size()];
        for (int i = 0; i < blocks.length; i++) {
            FieldVector vector = root.getVector(vectorIndex[i]);
            blocks[i] = ArrowBlocks.toBlock(vector, mappings.get(i), columns.get(i).name());
        }
        return new Page(rows, blocks);
    }

    /** The mapping of the i-th column. */
    ColumnMapping mapping(int i)
    {
        return mappings.get(i);
    }
}
