package io.sstableflight.trino.it;

import io.sstableflight.trino.FlightClientPool;
import io.sstableflight.trino.FlightTesting;
import io.sstableflight.trino.SstableFlightConfig;
import io.sstableflight.trino.SstableFlightSplit;
import io.trino.spi.TrinoException;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Split failover against real servers: a split's locations are tried in
 * order while no batch has been read; UNAVAILABLE or unreachable moves on,
 * any other answer fails at once (another server would not read the ticket
 * differently). The oa server plans corpus.many (520 rows in one endpoint).
 */
@ExtendWith(TestClusterExtension.class)
class FailoverIT
{
    private static final long MANY_ROWS = 520;

    private FlightClientPool clients;
    private FlightEndpoint endpoint;

    @BeforeEach
    void plan()
    {
        clients = new FlightClientPool(new SstableFlightConfig().setUri(TestCluster.get().serverUri("oa")));
        FlightInfo info = clients.getFlightInfo("{\"version\":1,\"keyspace\":\"corpus\",\"table\":\"many\",\"splits\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8)).value();
        assertThat(info.getEndpoints()).hasSize(1);
        endpoint = info.getEndpoints().getFirst();
    }

    @AfterEach
    void close()
    {
        clients.close();
    }

    @Test
    void anUnreachableFirstLocationFallsThroughToTheNext()
            throws IOException
    {
        SstableFlightSplit split = new SstableFlightSplit(endpoint.getTicket().getBytes(), List.of(deadLocation(), TestCluster.get().serverUri("oa")));
        assertThat(FlightTesting.countRows(clients, split, "many")).isEqualTo(MANY_ROWS);
    }

    @Test
    void aLocationThatRefusesTheTicketFailsWithoutTryingTheNext()
    {
        // The nb server's ticket key is another: it answers INVALID_ARGUMENT, not UNAVAILABLE.
        SstableFlightSplit split = new SstableFlightSplit(endpoint.getTicket().getBytes(), List.of(TestCluster.get().serverUri("nb"), TestCluster.get().serverUri("oa")));
        assertThatThrownBy(() -> FlightTesting.countRows(clients, split, "many"))
                .isInstanceOf(TrinoException.class)
                .hasMessageContaining("read split from " + TestCluster.get().serverUri("nb"))
                .hasMessageContaining("INVALID_ARGUMENT");
    }

    @Test
    void noReachableLocationNamesEveryOneTried()
            throws IOException
    {
        String first = deadLocation();
        String second = deadLocation();
        SstableFlightSplit split = new SstableFlightSplit(endpoint.getTicket().getBytes(), List.of(first, second));
        assertThatThrownBy(() -> FlightTesting.countRows(clients, split, "many"))
                .isInstanceOf(TrinoException.class)
                .hasMessageContaining("no location answered")
                .hasMessageContaining(first)
                .hasMessageContaining(second);
    }

    /** A loopback port nothing listens on: bound, then released. */
    private static String deadLocation()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return "grpc://127.0.0.1:" + socket.getLocalPort();
        }
    }
}
