package io.sstableflight.trino.corpus;

import io.sstableflight.trino.CqlType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * One table of the committed corpus (testdata/corpus/README.md): the rows
 * Cassandra returned over CQL (expected.json) and the user types its
 * schema.cql defines, which DESCRIBE and the value checks need (a UDT
 * column's cql.type is only its name).
 */
public record CorpusTable(String mode, String keyspace, String name, long readAt, List<Column> columns, List<Map<String, Object>> rows, Map<String, List<Column>> udts)
{
    public record Column(String name, CqlType type, String kind) {}

    private static final Pattern CREATE_TYPE = Pattern.compile("CREATE TYPE (\\w+)\\.(\\w+) \\((.*?)\\);", Pattern.DOTALL);

    /** Every table of a mode, in name order. */
    public static List<CorpusTable> all(Path modeDir, String mode)
            throws IOException
    {
        List<CorpusTable> tables = new ArrayList<>();
        try (var keyspaces = Files.list(modeDir)) {
            for (Path keyspace : keyspaces.filter(Files::isDirectory).sorted().toList()) {
                try (var dirs = Files.list(keyspace)) {
                    for (Path dir : dirs.filter(d -> Files.isRegularFile(d.resolve("expected.json"))).sorted().toList()) {
                        tables.add(load(dir, mode));
                    }
                }
            }
        }
        return tables;
    }

    @SuppressWarnings("unchecked")
    public static CorpusTable load(Path dir, String mode)
            throws IOException
    {
        Map<String, Object> expected = (Map<String, Object>) RawJson.read(dir.resolve("expected.json"));
        List<Column> columns = new ArrayList<>();
        for (Object c : (List<Object>) expected.get("columns")) {
            Map<String, Object> column = (Map<String, Object>) c;
            columns.add(new Column((String) column.get("name"), CqlType.parse((String) column.get("type")), (String) column.get("kind")));
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Object r : (List<Object>) expected.get("rows")) {
            rows.add((Map<String, Object>) ((Map<String, Object>) r).get("values"));
        }
        long readAt = Long.parseLong(((RawJson.Number) expected.get("read_at")).text());
        return new CorpusTable(mode, (String) expected.get("keyspace"), (String) expected.get("table"), readAt, columns, rows, udts(Files.readString(dir.resolve("schema.cql"), UTF_8)));
    }

    private static Map<String, List<Column>> udts(String schema)
    {
        Map<String, List<Column>> udts = new LinkedHashMap<>();
        Matcher matcher = CREATE_TYPE.matcher(schema);
        while (matcher.find()) {
            List<Column> fields = new ArrayList<>();
            for (String field : topLevelSplit(matcher.group(3))) {
                String trimmed = field.strip();
                int space = trimmed.indexOf(' ');
                fields.add(new Column(trimmed.substring(0, space), CqlType.parse(trimmed.substring(space + 1).strip()), "field"));
            }
            udts.put(matcher.group(2), fields);
        }
        return udts;
    }

    private static List<String> topLevelSplit(String text)
    {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '<') {
                depth++;
            }
            else if (c == '>') {
                depth--;
            }
            else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        if (!text.substring(start).isBlank()) {
            parts.add(text.substring(start));
        }
        return parts;
    }

    @Override
    public String toString()
    {
        return mode + "/" + name;
    }
}
