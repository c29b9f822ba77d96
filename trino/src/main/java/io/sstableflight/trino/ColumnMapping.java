package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Type;

import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How one Arrow field becomes one Trino column (or, nested, one element,
 * entry or field): the Trino type, the conversion that fills its block,
 * and the mappings of its children. A field the connector cannot map has
 * kind UNSUPPORTED and says why, so the column is still listed. A DECIMAL
 * mapping also says how a value with more fraction digits than its type's
 * scale is rounded.
 */
public record ColumnMapping(Kind kind, Optional<Type> type, List<ColumnMapping> children, Optional<String> unsupported, Optional<RoundingMode> rounding)
{
    public enum Kind
    {
        BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, REAL, DOUBLE,
        /** Utf8 copied as is: text, ascii, varchar, varint (decimal digits). */
        VARCHAR,
        VARBINARY,
        /** Utf8 {@code <unscaled>e<-scale>} rewritten as Java's BigDecimal text, scale kept. */
        DECIMAL_TEXT,
        /** Utf8 {@code <unscaled>e<-scale>} rescaled into Trino's DECIMAL(p, s), rounded per {@link #rounding()}. */
        DECIMAL,
        /** Utf8 address text parsed into Trino's 16-byte IPADDRESS. */
        INET,
        UUID,
        TIMESTAMP,
        DATE,
        TIME,
        /** MonthDayNano interval as ROW(months, days, nanoseconds). */
        DURATION,
        /** List: list and set. */
        ARRAY,
        /** FixedSizeList: vector. */
        VECTOR,
        MAP,
        /** Struct: tuple and UDT. */
        ROW,
        UNSUPPORTED
    }

    public ColumnMapping
    {
        requireNonNull(kind, "kind is null");
        requireNonNull(type, "type is null");
        children = ImmutableList.copyOf(children);
        requireNonNull(unsupported, "unsupported is null");
        requireNonNull(rounding, "rounding is null");
        if (rounding.isPresent() != (kind == Kind.DECIMAL)) {
            throw new IllegalArgumentException("a rounding mode belongs to a DECIMAL mapping, and only there: " + kind);
        }
    }

    static ColumnMapping of(Kind kind, Type type, List<ColumnMapping> children)
    {
        return new ColumnMapping(kind, Optional.of(type), children, Optional.empty(), Optional.empty());
    }

    static ColumnMapping decimal(DecimalType type, RoundingMode rounding)
    {
        return new ColumnMapping(Kind.DECIMAL, Optional.of(type), List.of(), Optional.empty(), Optional.of(rounding));
    }

    static ColumnMapping unsupported(String why)
    {
        return new ColumnMapping(Kind.UNSUPPORTED, Optional.empty(), List.of(), Optional.of(why), Optional.empty());
    }

    public boolean isSupported()
    {
        return kind != Kind.UNSUPPORTED;
    }

    public ColumnMapping child(int i)
    {
        return children.get(i);
    }
}
