package io.sstableflight.trino;

/**
 * Rewrites the server's decimal text, {@code [-]<unscaled digits>e<-scale>}
 * (docs/types.md: {@code 12345e-2} is 123.45), into Java's
 * {@code BigDecimal.toString()} form ({@code 123.45}, {@code 0.00},
 * {@code 1E+10}, {@code -1E-21}) byte by byte, with no object per value.
 * BigDecimal's rule: with a scale of zero or more and an adjusted exponent
 * (digits - 1 - scale) of -6 or more the number is written plainly, else
 * as one digit, a fraction and {@code E} with the adjusted exponent, signed
 * {@code +} when positive. TestDecimalText holds it to BigDecimal's own
 * output. DecimalScaling reads the same text into a DECIMAL's longs.
 */
final class DecimalText
{
    private DecimalText() {}

    /** How many bytes longer than the server's text BigDecimal's can be ("1e-6" is "0.000001"). */
    static final int MAX_GROWTH = 8;

    /**
     * One decimal of the server's form, read in place: where its digits
     * are (leading zeros skipped, at least one digit kept), its sign and
     * its scale. The one home of that form's grammar; one instance reads a
     * whole column, value after value, so reading makes no object.
     */
    static final class Parsed
    {
        boolean negative;
        int digitsStart;
        int digitsEnd;
        int scale;

        /**
         * Reads {@code [start, end)} of {@code in}: false when it is not
         * {@code [-]<digits>e[+|-]<digits>} with a scale in CQL's int range.
         */
        boolean parse(byte[] in, int start, int end)
        {
            int p = start;
            negative = p < end && in[p] == '-';
            if (negative) {
                p++;
            }
            // Leading zeros carry no digit of the coefficient (BigDecimal drops them too).
            while (p + 1 < end && in[p] == '0' && isDigit(in[p + 1])) {
                p++;
            }
            digitsStart = p;
            while (p < end && isDigit(in[p])) {
                p++;
            }
            digitsEnd = p;
            if (digitsEnd == digitsStart || p >= end || (in[p] != 'e' && in[p] != 'E')) {
                return false;
            }
            p++;
            boolean negativeExponent = p < end && in[p] == '-';
            if (p < end && (in[p] == '-' || in[p] == '+')) {
                p++;
            }
            if (p >= end || end - p > 10) {
                return false;
            }
            long exponent = 0;
            for (; p < end; p++) {
                if (!isDigit(in[p])) {
                    return false;
                }
                exponent = exponent * 10 + (in[p] - '0');
            }
            long valueScale = negativeExponent ? exponent : -exponent;
            if (valueScale > Integer.MAX_VALUE || valueScale < Integer.MIN_VALUE) {
                return false;
            }
            scale = (int) valueScale;
            return true;
        }

        int digits()
        {
            return digitsEnd - digitsStart;
        }

        boolean isZero(byte[] in)
        {
            return digits() == 1 && in[digitsStart] == '0';
        }
    }

    /**
     * Writes the BigDecimal text of the value {@code parsed} read from
     * {@code in} to {@code out} from {@code at}, which must have room for
     * the server's text and {@code MAX_GROWTH} bytes more; returns where the
     * text ends.
     */
    static int rewrite(Parsed parsed, byte[] in, byte[] out, int at)
    {
        int digitsStart = parsed.digitsStart;
        int digits = parsed.digits();
        long scale = parsed.scale;
        int o = at;
        if (parsed.negative && !parsed.isZero(in)) {
            out[o++] = '-';
        }
        long adjusted = digits - 1 - scale;
        if (scale >= 0 && adjusted >= -6) {
            if (scale == 0) {
                System.arraycopy(in, digitsStart, out, o, digits);
                return o + digits;
            }
            if (digits > scale) {
                int whole = digits - (int) scale;
                System.arraycopy(in, digitsStart, out, o, whole);
                o += whole;
                out[o++] = '.';
                System.arraycopy(in, digitsStart + whole, out, o, (int) scale);
                return o + (int) scale;
            }
            // At most five zeros: adjusted >= -6 bounds scale - digits.
            out[o++] = '0';
            out[o++] = '.';
            for (long i = digits; i < scale; i++) {
                out[o++] = '0';
            }
            System.arraycopy(in, digitsStart, out, o, digits);
            return o + digits;
        }
        out[o++] = in[digitsStart];
        if (digits > 1) {
            out[o++] = '.';
            System.arraycopy(in, digitsStart + 1, out, o, digits - 1);
            o += digits - 1;
        }
        out[o++] = 'E';
        if (adjusted > 0) {
            out[o++] = '+';
        }
        return writeLong(adjusted, out, o);
    }

    private static boolean isDigit(byte b)
    {
        return b >= '0' && b <= '9';
    }

    private static int writeLong(long value, byte[] out, int at)
    {
        int o = at;
        if (value < 0) {
            out[o++] = '-';
            value = -value;
        }
        long divisor = 1;
        while (divisor <= value / 10) {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10) {
            out[o++] = (byte) ('0' + value / divisor % 10);
        }
        return o;
    }
}
