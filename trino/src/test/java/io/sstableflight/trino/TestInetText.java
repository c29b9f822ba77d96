package io.sstableflight.trino;

import com.google.common.net.InetAddresses;
import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * InetText against Guava's InetAddresses on the same texts: every address
 * the server can write (a dotted quad, RFC 5952's compressed IPv6, an
 * embedded quad) and the other textual forms of IPv6 give the 16 bytes of
 * Trino's IPADDRESS (IPv4 as IPv4-mapped); what Guava refuses is refused.
 */
class TestInetText
{
    private static byte[] parse(String text)
    {
        byte[] in = ("x" + text + "y").getBytes(UTF_8);
        byte[] out = new byte[16];
        // Stale bytes from the value before must not leak into this one.
        java.util.Arrays.fill(out, (byte) 0x5a);
        return InetText.parse(in, 1, in.length - 1, out) ? out : null;
    }

    private static byte[] guava(String text)
    {
        if (!InetAddresses.isInetAddress(text) || text.contains("%")) {
            return null;
        }
        byte[] bytes = InetAddresses.forString(text).getAddress();
        if (bytes.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(bytes, 0, mapped, 12, 4);
            return mapped;
        }
        return bytes;
    }

    @Test
    void edgeCasesAgreeWithGuava()
    {
        for (String text : List.of("0.0.0.0", "255.255.255.255", "192.0.2.1", "::", "::1", "1::", "fe80::1:2:3:4", "2001:db8::ff00:42:8329", "::ffff:1.2.3.4",
                "::1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "FE80::A", "0:0:0:0:0:0:0:0", "1::8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
                "", ":", ":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4::5:6:7:8", "1::2::3", "12345::", ":1::", "1:", "1.2.3", "1.2.3.4.5", "256.1.1.1",
                "1.2.3.04", "01.2.3.4", "1.2.3.4:5", "::1.2.3", "1:2:3:4:5:6:7:1.2.3.4", "g::1", "fe80::1%eth0", " 1.2.3.4", "1.2.3.4 ", "1..2.3", "::ffff:1.2.3.256")) {
            assertThat(parse(text)).as("\"%s\"", text).isEqualTo(guava(text));
        }
    }

    @Test
    void randomAddressesInEveryFormAgreeWithGuava()
            throws UnknownHostException
    {
        Random random = new Random(16);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextBoolean() ? 4 : 16];
            random.nextBytes(bytes);
            if (bytes.length == 16) {
                // Runs of zero groups, where '::' compression applies.
                int from = random.nextInt(8);
                int to = Math.min(8, from + random.nextInt(8));
                java.util.Arrays.fill(bytes, 2 * from, 2 * to, (byte) 0);
            }
            InetAddress address = InetAddress.getByAddress(bytes);
            List<String> texts = new ArrayList<>(List.of(InetAddresses.toAddrString(address), address.getHostAddress()));
            if (address instanceof Inet4Address) {
                texts.add("::ffff:" + address.getHostAddress());
            }
            for (String text : texts) {
                assertThat(parse(text)).as(text).isEqualTo(guava(text));
            }
        }
    }
}
