package io.sstableflight.trino;

import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;

import static org.assertj.core.api.Assertions.assertThat;

/** The TLS reason Arrow Flight keeps only in the cause chain reaches the message (SecurityIT sees it through Trino). */
class TestFlightErrors
{
    @Test
    void aMissingClientCertificateSaysWhatToSet()
    {
        FlightRuntimeException e = sslException("error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED");
        assertThat(FlightErrors.describe(e))
                .startsWith("ssl exception (error:1000045c")
                .contains("TLSV1_ALERT_CERTIFICATE_REQUIRED")
                .contains("sstable-flight.tls.cert-file");
    }

    @Test
    void aRefusedClientCertificateNamesTheServersCa()
    {
        assertThat(FlightErrors.describe(sslException("TLSV1_ALERT_BAD_CERTIFICATE"))).contains("--tls-client-ca");
    }

    @Test
    void anotherReasonIsAppendedAsItIs()
    {
        assertThat(FlightErrors.describe(sslException("PKIX path building failed"))).isEqualTo("ssl exception (PKIX path building failed)");
    }

    @Test
    void aMessageWithoutACauseStaysAsItIs()
    {
        assertThat(FlightErrors.describe(CallStatus.UNAVAILABLE.withDescription("draining").toRuntimeException())).isEqualTo("draining");
    }

    /** As Arrow Flight reports a failed handshake: UNAVAILABLE "ssl exception", the reason two causes down. */
    private static FlightRuntimeException sslException(String reason)
    {
        return CallStatus.UNAVAILABLE.withDescription("ssl exception").withCause(new IllegalStateException("decoder: " + reason, new SSLHandshakeException(reason))).toRuntimeException();
    }
}
