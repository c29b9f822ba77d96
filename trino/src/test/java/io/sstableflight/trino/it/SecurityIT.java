package io.sstableflight.trino.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The catalog's TLS and token options against a server started with
 * --tls-cert, --tls-key and --auth-token-file (TestCluster): with the CA
 * and the token the corpus reads; without the token the server refuses and
 * the error says so. Against a server started with --tls-client-ca (mTLS),
 * the catalog's client certificate reads; none, or one another CA signed,
 * fails with the TLS alert and the properties to set.
 */
@ExtendWith(TestClusterExtension.class)
class SecurityIT
{
    @Test
    void tlsWithTheTokenReads()
            throws SQLException
    {
        try (Connection connection = TestCluster.get().connect();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT count(*), sum(v) FROM sstable_tls.corpus.many")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(520);
        }
    }

    @Test
    void mtlsWithTheClientCertificateReads()
            throws SQLException
    {
        assertThat(Queries.texts("SELECT count(*) FROM sstable_mtls.corpus.many")).containsExactly("520");
    }

    @Test
    void mtlsWithoutAClientCertificateFails()
    {
        assertThatThrownBy(() -> showTables("sstable_mtls_no_cert"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("CERTIFICATE_REQUIRED")
                .hasMessageContaining("sstable-flight.tls.cert-file");
    }

    @Test
    void mtlsWithACertificateOfAnotherCaFails()
    {
        // The client offers only a certificate of a CA the server names in its request: this one it keeps back.
        assertThatThrownBy(() -> showTables("sstable_mtls_wrong_ca"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("CERTIFICATE_REQUIRED")
                .hasMessageContaining("sstable-flight.tls.cert-file");
    }

    private static void showTables(String catalog)
            throws SQLException
    {
        Queries.texts("SHOW TABLES FROM %s.corpus".formatted(catalog));
    }

    @Test
    void withoutTheTokenTheServerRefuses()
    {
        assertThatThrownBy(() -> {
            try (Connection connection = TestCluster.get().connect();
                    Statement statement = connection.createStatement()) {
                statement.executeQuery("SHOW TABLES FROM sstable_tls_no_token.corpus").next();
            }
        })
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("UNAUTHENTICATED");
    }
}
