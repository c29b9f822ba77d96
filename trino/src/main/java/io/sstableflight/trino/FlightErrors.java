package io.sstableflight.trino;

import org.apache.arrow.flight.FlightRuntimeException;

/**
 * What a failed Flight call tells the user. Arrow Flight turns a failed TLS
 * handshake into UNAVAILABLE with the bare description "ssl exception"; the
 * reason (the server's TLS alert, a certificate that did not verify) is
 * only in the cause chain, so a message built from getMessage() alone left
 * users guessing. This adds the deepest cause, and for the alerts of a
 * server that checks client certificates (--tls-client-ca) says which
 * catalog properties to set.
 */
public final class FlightErrors
{
    private FlightErrors() {}

    /** The exception's message, followed by its root cause's where that says more. */
    public static String describe(FlightRuntimeException e)
    {
        String message = e.getMessage();
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String reason = root.getMessage();
        if (root == e || reason == null || reason.isBlank() || (message != null && message.contains(reason))) {
            return message;
        }
        String described = message + " (" + reason + ")";
        if (reason.contains("CERTIFICATE_REQUIRED")) {
            return described + ": the server requires a client certificate signed by its --tls-client-ca; set sstable-flight.tls.cert-file and sstable-flight.tls.key-file to one";
        }
        if (reason.contains("ALERT_BAD_CERTIFICATE") || reason.contains("ALERT_UNKNOWN_CA")) {
            return described + ": the server refused the client certificate (sstable-flight.tls.cert-file): it must be signed by the server's --tls-client-ca";
        }
        return described;
    }
}
