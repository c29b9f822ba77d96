package io.sstableflight.trino;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;

import java.util.Optional;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * A column: its Cassandra name (case kept), CQL type and kind as the server's
 * field metadata gives them, and its Trino type, or why it has none. An
 * unmapped column is hidden, as Trino's cassandra connector leaves out the
 * types it cannot read, so that {@code SELECT *} reads the rest; it keeps
 * its handle (as VARCHAR, with the reason as its comment), so selecting it
 * by name fails with the reason rather than "column cannot be resolved".
 */
public record SstableFlightColumnHandle(String name, String cqlType, String cqlKind, Type type, Optional<String> unsupported)
        implements ColumnHandle
{
    public SstableFlightColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(cqlType, "cqlType is null");
        requireNonNull(cqlKind, "cqlKind is null");
        requireNonNull(type, "type is null");
        requireNonNull(unsupported, "unsupported is null");
    }

    static SstableFlightColumnHandle of(String name, String cqlType, String cqlKind, ColumnMapping mapping)
    {
        return new SstableFlightColumnHandle(name, cqlType, cqlKind, mapping.type().orElse(VARCHAR), mapping.unsupported());
    }

    public ColumnMetadata columnMetadata()
    {
        String comment = unsupported
                .map(why -> "NOT MAPPED (hidden; selecting it fails): cql %s: %s".formatted(cqlType, why))
                .orElse("cql " + cqlType);
        return ColumnMetadata.builder()
                .setName(name)
                .setType(type)
                .setComment(Optional.of(comment))
                .setExtraInfo(Optional.of(cqlKind.replace('_', ' ')))
                .setHidden(unsupported.isPresent())
                .build();
    }

    @Override
    public String toString()
    {
        return name + ":" + type;
    }
}
