package io.sstableflight.trino.it;

import io.trino.testing.BaseConnectorTest;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import io.trino.testing.TestingConnectorBehavior;
import org.junit.jupiter.api.Test;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.MaterializedResult.resultBuilder;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trino's standard connector checks (trino-testing's BaseConnectorTest, as
 * Trino's own connectors run them) against this connector in a Trino in
 * this JVM, over TPC-H tables the live Cassandra node wrote
 * ({@link SstableFlightQueryRunner}). The connector is read-only, so the
 * checks of writes and DDL run as checks that each is refused with
 * Trino's standard message; the rest compare queries with H2.
 *
 * Named *ConnectorTest as BaseConnectorTest requires; Failsafe runs it
 * beside the *IT suites (it needs the server binary and the node).
 */
public class SstableFlightConnectorTest
        extends BaseConnectorTest
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return SstableFlightQueryRunner.create(REQUIRED_TPCH_TABLES);
    }

    @Override
    protected boolean hasBehavior(TestingConnectorBehavior connectorBehavior)
    {
        return switch (connectorBehavior) {
            // Read only: no writes, no DDL (SstableFlightConnector, docs/trino.md).
            case SUPPORTS_INSERT,
                    SUPPORTS_DELETE,
                    SUPPORTS_UPDATE,
                    SUPPORTS_MERGE,
                    SUPPORTS_CREATE_SCHEMA,
                    SUPPORTS_CREATE_TABLE,
                    SUPPORTS_RENAME_TABLE,
                    SUPPORTS_ADD_COLUMN,
                    SUPPORTS_RENAME_COLUMN,
                    SUPPORTS_SET_COLUMN_TYPE,
                    SUPPORTS_COMMENT_ON_TABLE,
                    SUPPORTS_CREATE_VIEW,
                    SUPPORTS_CREATE_MATERIALIZED_VIEW -> false;
            // Lists and sets read as arrays, maps as maps, UDTs and tuples as rows (TypeMapping); a dereference is not pushed.
            case SUPPORTS_ARRAY, SUPPORTS_MAP_TYPE, SUPPORTS_ROW_TYPE -> true;
            case SUPPORTS_DEREFERENCE_PUSHDOWN -> false;
            // Pushed: a fully bound partition key (equality, IN) and, under it, a clustering slice, text included
            // (Pushdown); no expression (LIKE, arithmetic) is.
            case SUPPORTS_PREDICATE_PUSHDOWN,
                    SUPPORTS_PREDICATE_PUSHDOWN_WITH_VARCHAR_EQUALITY,
                    SUPPORTS_PREDICATE_PUSHDOWN_WITH_VARCHAR_INEQUALITY -> true;
            case SUPPORTS_PREDICATE_EXPRESSION_PUSHDOWN -> false;
            // applyLimit; no topN, aggregation (count(*) reads no values, but Trino counts) or join pushdown.
            case SUPPORTS_LIMIT_PUSHDOWN -> true;
            case SUPPORTS_TOPN_PUSHDOWN, SUPPORTS_AGGREGATION_PUSHDOWN, SUPPORTS_JOIN_PUSHDOWN -> false;
            // No system.query table function passing CQL through.
            case SUPPORTS_NATIVE_QUERY -> false;
            default -> super.hasBehavior(connectorBehavior);
        };
    }

    /**
     * CQL's text has no length, so TPC-H's varchar(n) reads as varchar (as
     * in Trino's cassandra connector); Extra says each column's part of the
     * primary key and Comment its CQL type (SstableFlightColumnHandle).
     */
    @Override
    protected MaterializedResult getDescribeOrdersResult()
    {
        return resultBuilder(getSession(), VARCHAR, VARCHAR, VARCHAR, VARCHAR)
                .row("orderkey", "bigint", "partition key", "cql bigint")
                .row("custkey", "bigint", "clustering asc", "cql bigint")
                .row("orderstatus", "varchar", "clustering asc", "cql text")
                .row("totalprice", "double", "clustering asc", "cql double")
                .row("orderdate", "date", "clustering asc", "cql date")
                .row("orderpriority", "varchar", "clustering asc", "cql text")
                .row("clerk", "varchar", "clustering asc", "cql text")
                .row("shippriority", "integer", "clustering asc", "cql int")
                .row("comment", "varchar", "clustering asc", "cql text")
                .build();
    }

    /** AbstractTestQueries' expects empty Extra and Comment columns. */
    @Test
    @Override
    public void testShowColumns()
    {
        assertThat(computeActual("SHOW COLUMNS FROM orders")).isEqualTo(getDescribeOrdersResult());
    }

    /** As BaseConnectorTest's, with CQL text read as unbounded varchar and each column's CQL type as its comment. */
    @Test
    @Override
    public void testShowCreateTable()
    {
        assertThat(computeScalar("SHOW CREATE TABLE orders"))
                .isEqualTo("""
                        CREATE TABLE %s.%s.orders (
                           orderkey bigint COMMENT 'cql bigint',
                           custkey bigint COMMENT 'cql bigint',
                           orderstatus varchar COMMENT 'cql text',
                           totalprice double COMMENT 'cql double',
                           orderdate date COMMENT 'cql date',
                           orderpriority varchar COMMENT 'cql text',
                           clerk varchar COMMENT 'cql text',
                           shippriority integer COMMENT 'cql int',
                           comment varchar COMMENT 'cql text'
                        )\
                        """.formatted(getSession().getCatalog().orElseThrow(), getSession().getSchema().orElseThrow()));
    }

}
