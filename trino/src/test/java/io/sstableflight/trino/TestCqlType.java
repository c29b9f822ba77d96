package io.sstableflight.trino;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCqlType
{
    @Test
    void parsesTheSpellingsOfDocsTypes()
    {
        assertThat(CqlType.parse("int")).isEqualTo(new CqlType("int", List.of()));
        assertThat(CqlType.parse("frozen<list<int>>")).isEqualTo(new CqlType("list", List.of(new CqlType("int", List.of()))));
        assertThat(CqlType.parse("map<text, frozen<address>>"))
                .isEqualTo(new CqlType("map", List.of(new CqlType("text", List.of()), new CqlType("address", List.of()))));
        assertThat(CqlType.parse("vector<float, 3>").argument(1).name()).isEqualTo("3");
        assertThat(CqlType.parse("frozen<tuple<int, frozen<tuple<text, double>>>>").argument(1).argument(1).name()).isEqualTo("double");
        assertThat(CqlType.parse("'org.apache.cassandra.db.marshal.EmptyType'").name()).isEqualTo("org.apache.cassandra.db.marshal.EmptyType");
    }

    @Test
    void aMissingArgumentIsUnknown()
    {
        assertThat(CqlType.parse("address").argument(0)).isEqualTo(CqlType.UNKNOWN);
    }

    @Test
    void refusesMalformedSpellingsNamingTheOffset()
    {
        assertThatThrownBy(() -> CqlType.parse("list<int"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parse CQL type \"list<int\" at offset 8: '>' expected");
        assertThatThrownBy(() -> CqlType.parse("int int")).hasMessageContaining("text after the type");
        assertThatThrownBy(() -> CqlType.parse("")).hasMessageContaining("type name expected");
    }
}
