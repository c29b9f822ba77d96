package io.sstableflight.trino.corpus;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * expected.json as Java values, numbers kept as their text: the corpus
 * writes floats in the shortest form at their own width, and "-0" must stay
 * negative zero (any JSON number type would read it as integer 0).
 */
public final class RawJson
{
    /** A JSON number, exactly as written. */
    public record Number(String text) {}

    private RawJson() {}

    public static Object read(Path file)
            throws IOException
    {
        try (JsonParser parser = new JsonFactory().createParser(file.toFile())) {
            parser.nextToken();
            return value(parser);
        }
    }

    private static Object value(JsonParser parser)
            throws IOException
    {
        JsonToken token = parser.currentToken();
        return switch (token) {
            case START_OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    map.put(name, value(parser));
                }
                yield map;
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(parser));
                }
                yield list;
            }
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new Number(parser.getText());
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new IOException("unexpected JSON token " + token);
        };
    }
}
