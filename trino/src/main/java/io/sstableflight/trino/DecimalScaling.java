package io.sstableflight.trino;

import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Reads the server's decimal text, {@code [-]<unscaled digits>e<-scale>}
 * (docs/types.md, read by DecimalText.Parsed), into the unscaled value of
 * a Trino DECIMAL(p, s) in place, with no object per value: a CQL decimal
 * has its own scale, any sign, and any number of digits, so the value is
 * moved to scale s (digits
 * added, or dropped and rounded by the given mode, as
 * {@code BigDecimal.setScale(s, mode)} does) and then must have at most p
 * digits. Short decimals (p ≤ 18) use long arithmetic only; long ones a
 * 128-bit magnitude in two longs. TestDecimalScaling holds every result to
 * BigDecimal's.
 */
final class DecimalScaling
{
    static final int OK = 0;
    /** The value, at scale s, has more than p digits. */
    static final int OVERFLOW = 1;
    /** The value has digits beyond scale s that are not zero, and the mode is UNNECESSARY. */
    static final int INEXACT = 2;

    private static final int MAX_PRECISION = 38;
    // 10^i as two longs (high, low), i = 0..38: 10^38 < 2^127.
    private static final long[] POWERS_HIGH = new long[MAX_PRECISION + 1];
    private static final long[] POWERS_LOW = new long[MAX_PRECISION + 1];

    static {
        for (int i = 0; i <= MAX_PRECISION; i++) {
            BigInteger power = BigInteger.TEN.pow(i);
            POWERS_HIGH[i] = power.shiftRight(64).longValue();
            POWERS_LOW[i] = power.longValue();
        }
    }

    private DecimalScaling() {}

    /**
     * Rescales the value {@code parsed} read from {@code in} to
     * DECIMAL({@code precision}, {@code scale}) and writes its unscaled
     * value: for a short decimal (precision ≤ 18) as one long at
     * {@code out[at]}, else as two's complement 128 bits at
     * {@code out[at]} (high) and {@code out[at + 1]} (low), as Trino's
     * Int128 blocks hold them. Returns OK, or why it could not (nothing
     * is written then).
     */
    static int rescale(DecimalText.Parsed parsed, byte[] in, int precision, int scale, RoundingMode rounding, long[] out, int at)
    {
        boolean shortDecimal = precision <= 18;
        if (parsed.isZero(in)) {
            out[at] = 0;
            if (!shortDecimal) {
                out[at + 1] = 0;
            }
            return OK;
        }
        boolean negative = parsed.negative;
        int digitsStart = parsed.digitsStart;
        int digitsEnd = parsed.digitsEnd;
        int digits = parsed.digits();
        long valueScale = parsed.scale;
        // The first digit is not zero, so the value has `kept` digits at the target scale, before rounding.
        long shift = scale - valueScale;
        long kept = digits + shift;
        if (kept > precision) {
            return OVERFLOW;
        }
        // The digits of the value that stay: all of them unless the value has more scale than the type.
        int keptDigits = (int) Math.clamp(kept, 0, digits);
        boolean increment = false;
        if (shift < 0) {
            // Digits beyond the scale: the first of them, and whether any after it is not zero.
            int first;
            boolean rest;
            if (kept < 0) {
                // Zeros stand between the scale and the value's first digit, which is not zero.
                first = 0;
                rest = true;
            }
            else {
                first = in[digitsStart + keptDigits] - '0';
                rest = false;
                for (int i = digitsStart + keptDigits + 1; i < digitsEnd && !rest; i++) {
                    rest = in[i] != '0';
                }
            }
            if (first != 0 || rest) {
                if (rounding == RoundingMode.UNNECESSARY) {
                    return INEXACT;
                }
                increment = roundsAway(rounding, negative, first, rest, keptDigits > 0 && ((in[digitsStart + keptDigits - 1] - '0') & 1) == 1);
            }
        }
        // Zeros the target scale adds beyond the value's own digits (none when digits were dropped).
        int zeros = (int) Math.max(0, shift);
        if (shortDecimal) {
            long value = 0;
            for (int i = digitsStart; i < digitsStart + keptDigits; i++) {
                value = value * 10 + (in[i] - '0');
            }
            for (int i = 0; i < zeros; i++) {
                value *= 10;
            }
            if (increment) {
                value++;
                if (value == POWERS_LOW[precision]) {
                    return OVERFLOW;
                }
            }
            out[at] = negative ? -value : value;
            return OK;
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < keptDigits + zeros; i++) {
            int digit = i < keptDigits ? in[digitsStart + i] - '0' : 0;
            // (high, low) * 10 + digit; the magnitude stays below 10^38 < 2^127.
            long lowTimesTen = low * 10;
            long carry = Math.unsignedMultiplyHigh(low, 10);
            low = lowTimesTen + digit;
            if (Long.compareUnsigned(low, lowTimesTen) < 0) {
                carry++;
            }
            high = high * 10 + carry;
        }
        if (increment) {
            low++;
            if (low == 0) {
                high++;
            }
            if (high == POWERS_HIGH[precision] && low == POWERS_LOW[precision]) {
                return OVERFLOW;
            }
        }
        if (negative && (high | low) != 0) {
            // Two's complement: -x = ~x + 1.
            low = -low;
            high = low == 0 ? -high : ~high;
        }
        out[at] = high;
        out[at + 1] = low;
        return OK;
    }

    /**
     * Whether dropping digits whose first is {@code first} (and of which
     * a later one is not zero: {@code rest}) rounds the magnitude up, as
     * BigDecimal rounds: UP and DOWN away from and toward zero, CEILING and
     * FLOOR toward the infinities, the HALF modes to the nearest, a tie up,
     * down, or to the even last kept digit.
     */
    private static boolean roundsAway(RoundingMode rounding, boolean negative, int first, boolean rest, boolean lastKeptOdd)
    {
        int half = first != 5 ? Integer.compare(first, 5) : (rest ? 1 : 0);
        return switch (rounding) {
            case UP -> true;
            case DOWN -> false;
            case CEILING -> !negative;
            case FLOOR -> negative;
            case HALF_UP -> half >= 0;
            case HALF_DOWN -> half > 0;
            case HALF_EVEN -> half > 0 || (half == 0 && lastKeptOdd);
            case UNNECESSARY -> throw new IllegalArgumentException("UNNECESSARY rounds nothing");
        };
    }
}
