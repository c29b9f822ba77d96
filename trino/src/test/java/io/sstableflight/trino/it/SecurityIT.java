package io.sstableflight.trino.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.SQLException;

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
        assertThat(Queries.texts("SELECT count(*) FROM sstable_tls.corpus.many")).containsExactly("520");
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
        assertThatThrownBy(() -> showTables("sstable_tls_no_token"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("UNAUTHENTICATED");
    }
}
