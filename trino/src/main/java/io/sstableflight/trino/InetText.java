package io.sstableflight.trino;

/**
 * Parses the server's inet text (docs/types.md: a dotted quad, or IPv6 in
 * any textual form, RFC 5952's compressed one with an embedded IPv4 quad
 * included) into the 16 bytes of Trino's IPADDRESS, byte by byte, with no
 * object per value: IPv4 becomes the IPv4-mapped IPv6 address, as Trino and
 * its cassandra connector hold it. TestInetText holds it to Guava's
 * InetAddresses on the same texts.
 *
 * <pre>
 * address := ipv4 | ipv6
 * ipv4    := octet '.' octet '.' octet '.' octet       (octet: 0-255, no leading zero)
 * ipv6    := up to 8 groups of 1-4 hex digits separated by ':', at most one '::'
 *            standing for one or more zero groups, the last two groups optionally an ipv4
 * </pre>
 */
final class InetText
{
    private InetText() {}

    /** Fills {@code out[0..16)} from the text at {@code [start, end)}; returns false on anything but an address. */
    static boolean parse(byte[] data, int start, int end, byte[] out)
    {
        java.util.Arrays.fill(out, (byte) 0);
        boolean colon = false;
        for (int p = start; p < end; p++) {
            if (data[p] == ':') {
                colon = true;
                break;
            }
        }
        if (!colon) {
            out[10] = (byte) 0xff;
            out[11] = (byte) 0xff;
            return ipv4(data, start, end, out, 12);
        }
        return ipv6(data, start, end, out);
    }

    private static boolean ipv4(byte[] data, int start, int end, byte[] out, int at)
    {
        int p = start;
        for (int octet = 0; octet < 4; octet++) {
            if (octet > 0) {
                if (p >= end || data[p] != '.') {
                    return false;
                }
                p++;
            }
            int value = 0;
            int digits = 0;
            while (p < end && data[p] >= '0' && data[p] <= '9') {
                if (digits == 1 && value == 0) {
                    // A leading zero could be read as octal: refused, as Guava and Go refuse it.
                    return false;
                }
                value = value * 10 + (data[p] - '0');
                digits++;
                p++;
                if (digits > 3) {
                    return false;
                }
            }
            if (digits == 0 || value > 255) {
                return false;
            }
            out[at + octet] = (byte) value;
        }
        return p == end;
    }

    private static boolean ipv6(byte[] data, int start, int end, byte[] out)
    {
        // Groups before '::' fill from the front; groups after it are written after them
        // and moved to the back once their number is known.
        int groups = 0;
        int gap = -1;
        int p = start;
        if (end - p >= 2 && data[p] == ':' && data[p + 1] == ':') {
            gap = 0;
            p += 2;
        }
        else if (p < end && data[p] == ':') {
            return false;
        }
        while (p < end) {
            if (groups == 8) {
                return false;
            }
            int groupStart = p;
            int value = 0;
            int digits = 0;
            while (p < end && hex(data[p]) >= 0) {
                value = (value << 4) | hex(data[p]);
                digits++;
                p++;
                if (digits > 4) {
                    return false;
                }
            }
            if (p < end && data[p] == '.') {
                // An embedded IPv4 quad: the last two groups.
                if (groups > 6 || !ipv4(data, groupStart, end, out, 2 * groups)) {
                    return false;
                }
                groups += 2;
                p = end;
                break;
            }
            if (digits == 0) {
                return false;
            }
            out[2 * groups] = (byte) (value >>> 8);
            out[2 * groups + 1] = (byte) value;
            groups++;
            if (p == end) {
                break;
            }
            if (data[p] != ':') {
                return false;
            }
            p++;
            if (p < end && data[p] == ':') {
                if (gap >= 0) {
                    return false;
                }
                gap = groups;
                p++;
            }
            else if (p == end) {
                // A trailing single ':'.
                return false;
            }
        }
        if (gap < 0) {
            return groups == 8;
        }
        if (groups == 8) {
            // '::' must stand for at least one group.
            return false;
        }
        int tail = groups - gap;
        System.arraycopy(out, 2 * gap, out, 16 - 2 * tail, 2 * tail);
        java.util.Arrays.fill(out, 2 * gap, 16 - 2 * tail, (byte) 0);
        return true;
    }

    private static int hex(byte b)
    {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
