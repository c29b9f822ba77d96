package io.sstableflight.trino;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A CQL type as the server's {@code cql.type} field metadata spells it
 * (docs/types.md): {@code int}, {@code frozen<list<int>>},
 * {@code map<text, frozen<address>>}, {@code vector<float, 3>}, or a custom
 * class in quotes. The connector needs it where Arrow types are shared
 * ({@code text}, {@code inet}, {@code varint} and {@code decimal} are all
 * Utf8); {@code frozen} is dropped, since it changes storage, not values.
 *
 * <pre>
 * type := name [ '&lt;' type { ',' type } '&gt;' ]
 * name := identifier | quoted class name | number (vector dimension)
 * </pre>
 */
public record CqlType(String name, List<CqlType> arguments)
{
    public CqlType
    {
        requireNonNull(name, "name is null");
        arguments = ImmutableList.copyOf(arguments);
    }

    /** A type whose name the connector does not know (a UDT name, say): no argument to descend into. */
    public static final CqlType UNKNOWN = new CqlType("", List.of());

    /** Parses a {@code cql.type}; throws IllegalArgumentException naming the offset of anything else. */
    public static CqlType parse(String text)
    {
        Parser parser = new Parser(text);
        CqlType type = parser.type();
        parser.skipSpace();
        if (parser.pos != text.length()) {
            throw parser.error("text after the type");
        }
        return type;
    }

    /** The i-th argument, or UNKNOWN where the spelling has none (a UDT's fields are not in it). */
    public CqlType argument(int i)
    {
        return i < arguments.size() ? arguments.get(i) : UNKNOWN;
    }

    private static final class Parser
    {
        private final String text;
        private int pos;

        Parser(String text)
        {
            this.text = requireNonNull(text, "text is null");
        }

        CqlType type()
        {
            skipSpace();
            String name = name();
            ImmutableList.Builder<CqlType> arguments = ImmutableList.builder();
            skipSpace();
            if (pos < text.length() && text.charAt(pos) == '<') {
                pos++;
                arguments.add(type());
                skipSpace();
                while (pos < text.length() && text.charAt(pos) == ',') {
                    pos++;
                    arguments.add(type());
                    skipSpace();
                }
                if (pos >= text.length() || text.charAt(pos) != '>') {
                    throw error("'>' expected");
                }
                pos++;
            }
            CqlType type = new CqlType(name, arguments.build());
            if (name.equals("frozen") && type.arguments().size() == 1) {
                return type.arguments().getFirst();
            }
            return type;
        }

        private String name()
        {
            // A custom class is quoted ('org.apache...'), a case-sensitive UDT name double-quoted.
            if (pos < text.length() && (text.charAt(pos) == '\'' || text.charAt(pos) == '"')) {
                char quote = text.charAt(pos);
                int end = text.indexOf(quote, pos + 1);
                if (end < 0) {
                    throw error("unterminated quoted name");
                }
                String name = text.substring(pos + 1, end);
                pos = end + 1;
                return name;
            }
            int start = pos;
            while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_' || text.charAt(pos) == '.')) {
                pos++;
            }
            if (start == pos) {
                throw error("type name expected");
            }
            return text.substring(start, pos);
        }

        void skipSpace()
        {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        IllegalArgumentException error(String what)
        {
            return new IllegalArgumentException("parse CQL type \"%s\" at offset %d: %s".formatted(text, pos, what));
        }
    }
}
