package io.sstableflight.trino;

import org.apache.arrow.flight.Location;

import java.net.URI;

/**
 * The URI forms the connector accepts for a server: ours ({@code grpc://},
 * {@code grpc+tls://}) and Arrow's name for plaintext ({@code grpc+tcp://}),
 * which endpoints of other Flight servers carry.
 */
final class FlightLocations
{
    private FlightLocations() {}

    static boolean isValid(URI uri)
    {
        String scheme = uri.getScheme();
        return scheme != null
                && (scheme.equals("grpc") || scheme.equals("grpc+tcp") || scheme.equals("grpc+tls"))
                && uri.getHost() != null
                && uri.getPort() > 0
                && (uri.getPath() == null || uri.getPath().isEmpty());
    }

    static boolean isTls(URI uri)
    {
        return "grpc+tls".equals(uri.getScheme());
    }

    /** The Arrow location of a valid URI. */
    static Location toLocation(URI uri)
    {
        if (isTls(uri)) {
            return Location.forGrpcTls(uri.getHost(), uri.getPort());
        }
        return Location.forGrpcInsecure(uri.getHost(), uri.getPort());
    }
}
