package io.sstableflight.trino;

import io.trino.spi.type.Int128;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Random;

import static io.sstableflight.trino.DecimalScaling.INEXACT;
import static io.sstableflight.trino.DecimalScaling.OK;
import static io.sstableflight.trino.DecimalScaling.OVERFLOW;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DecimalScaling against Java's BigDecimal: every value it reads must be
 * {@code new BigDecimal(text).setScale(s, mode)}, its unscaled value
 * written as Trino holds a DECIMAL(p, s); a value BigDecimal cannot set
 * to that scale without rounding under UNNECESSARY is INEXACT, one with
 * more than p digits at that scale OVERFLOW.
 */
class TestDecimalScaling
{
    private static final List<Integer> PRECISIONS = List.of(1, 2, 9, 17, 18, 19, 20, 37, 38);

    @Test
    void randomValuesAtEveryPrecisionScaleAndMode()
    {
        Random random = new Random(24);
        int checked = 0;
        for (int n = 0; n < 1500; n++) {
            String text = randomText(random);
            for (int precision : PRECISIONS) {
                int scale = random.nextInt(precision + 1);
                for (RoundingMode mode : RoundingMode.values()) {
                    check(text, precision, scale, mode);
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(1500 * PRECISIONS.size() * RoundingMode.values().length);
    }

    @Test
    void edges()
    {
        for (RoundingMode mode : RoundingMode.values()) {
            for (String text : List.of(
                    "0e0", "-0e-2", "000e5", "0e-2147483647", "00012345e-2", "1e10", "5e5", "-1e-21", "1E+3", "1e+3",
                    // 38 nines, and 10^38: the largest DECIMAL(38, 0) and the first beyond it.
                    "99999999999999999999999999999999999999e0", "-99999999999999999999999999999999999999e0",
                    "100000000000000000000000000000000000000e0",
                    // Rounding that carries into a digit more: fits at (38, 0) only when it rounds down.
                    "999999999999999999999999999999999999995e-1", "-999999999999999999999999999999999999995e-1",
                    // Around 2^63 and 2^64, where the low long carries.
                    "9223372036854775807e0", "9223372036854775808e0", "18446744073709551615e0", "18446744073709551616e0",
                    "999999999999999999e0", "9999999999999999995e-1",
                    // Ties and near-ties.
                    "25e-1", "35e-1", "-25e-1", "251e-2", "249e-2", "5e-1", "-5e-1", "15e-1",
                    // Far beyond any scale, and longer than any precision but for its scale.
                    "7e-400", "-7e400", "123456789012345678901234567890123456789012345678901234567890e-59",
                    "314159265358979323846264338327950288e-35", "123456789012345678901234567890123456789e-9")) {
                for (int precision : PRECISIONS) {
                    for (int scale : List.of(0, 1, precision / 2, precision)) {
                        check(text, precision, scale, mode);
                    }
                }
            }
        }
    }

    @Test
    void examplesDocsTrinoMdGives()
    {
        // DECIMAL(38, 2): 1.005 rounds by the mode, or fails under UNNECESSARY; 10^36 does not fit.
        assertThat(unscaled("1005e-3", 38, 2, RoundingMode.HALF_UP)).isEqualTo(BigInteger.valueOf(101));
        assertThat(unscaled("1005e-3", 38, 2, RoundingMode.HALF_EVEN)).isEqualTo(BigInteger.valueOf(100));
        assertThat(rescale("1005e-3", 38, 2, RoundingMode.UNNECESSARY, new long[2])).isEqualTo(INEXACT);
        assertThat(rescale("1e36", 38, 2, RoundingMode.HALF_UP, new long[2])).isEqualTo(OVERFLOW);
        // A negative scale (1.2E+3): zeros are added.
        assertThat(unscaled("12e2", 38, 2, RoundingMode.UNNECESSARY)).isEqualTo(BigInteger.valueOf(120000));
    }

    @Test
    void scalesAtTheEndsOfCqlsIntRange()
    {
        // BigDecimal itself fails to rescale these; the digits dropped are all zeros but the last.
        assertThat(unscaled("7e-2147483647", 38, 2, RoundingMode.UP)).isEqualTo(BigInteger.ONE);
        assertThat(unscaled("-7e-2147483647", 38, 2, RoundingMode.FLOOR)).isEqualTo(BigInteger.ONE.negate());
        assertThat(unscaled("7e-2147483647", 9, 2, RoundingMode.HALF_UP)).isEqualTo(BigInteger.ZERO);
        assertThat(rescale("7e-2147483647", 38, 2, RoundingMode.UNNECESSARY, new long[2])).isEqualTo(INEXACT);
        assertThat(rescale("-7e2147483647", 38, 2, RoundingMode.HALF_UP, new long[2])).isEqualTo(OVERFLOW);
        assertThat(rescale("7e2147483648", 9, 0, RoundingMode.HALF_UP, new long[1])).isEqualTo(OVERFLOW);
    }

    @Test
    void textNotOfTheServersFormDoesNotParse()
    {
        for (String text : List.of("", "e5", "-e5", "1", "1e", "1e-", "1e+", "1.5e0", "--1e0", " 1e0", "1e0 ", "1e12345678901", "7e-9999999999", "1e2147483649", "1x0", "+1e0", "1e1.5")) {
            assertThat(new DecimalText.Parsed().parse(text.getBytes(US_ASCII), 0, text.length())).as(text).isFalse();
        }
    }

    private static void check(String text, int precision, int scale, RoundingMode mode)
    {
        BigDecimal value = new BigDecimal(text);
        BigInteger limit = BigInteger.TEN.pow(precision);
        int expected;
        BigInteger expectedUnscaled = null;
        // Digits before the point (precision - scale), plus the target scale: more than p cannot fit whatever the rounding.
        if (value.signum() != 0 && (long) value.precision() - value.scale() + scale > precision) {
            expected = OVERFLOW;
        }
        else {
            try {
                expectedUnscaled = value.setScale(scale, mode).unscaledValue();
                expected = expectedUnscaled.abs().compareTo(limit) >= 0 ? OVERFLOW : OK;
            }
            catch (ArithmeticException e) {
                assertThat(mode).as("%s: only UNNECESSARY refuses to round", text).isEqualTo(RoundingMode.UNNECESSARY);
                expected = INEXACT;
            }
        }
        long[] out = {-1, -1, -1};
        int status = rescale(text, precision, scale, mode, out, 1);
        String what = "%s as DECIMAL(%d, %d) %s".formatted(text, precision, scale, mode);
        assertThat(status).as(what).isEqualTo(expected);
        assertThat(out[0]).as("%s: nothing written before its place", what).isEqualTo(-1);
        if (expected == OK) {
            assertThat(read(out, 1, precision)).as(what).isEqualTo(expectedUnscaled);
            if (precision <= 18) {
                assertThat(out[2]).as("%s: a short decimal is one long", what).isEqualTo(-1);
            }
        }
    }

    private static String randomText(Random random)
    {
        int digits = 1 + random.nextInt(random.nextBoolean() ? 20 : 60);
        StringBuilder text = new StringBuilder();
        if (random.nextBoolean()) {
            text.append('-');
        }
        for (int i = 0; i < digits; i++) {
            // Mostly 9s and 0s and 5s, where carries and ties are.
            text.append(switch (random.nextInt(5)) {
                case 0 -> '9';
                case 1 -> '0';
                case 2 -> '5';
                default -> (char) ('0' + random.nextInt(10));
            });
        }
        text.append('e').append(random.nextInt(100) - 60);
        return text.toString();
    }

    private static BigInteger unscaled(String text, int precision, int scale, RoundingMode mode)
    {
        long[] out = new long[2];
        assertThat(rescale(text, precision, scale, mode, out)).isEqualTo(OK);
        return read(out, 0, precision);
    }

    private static int rescale(String text, int precision, int scale, RoundingMode mode, long[] out)
    {
        return rescale(text, precision, scale, mode, out, 0);
    }

    private static int rescale(String text, int precision, int scale, RoundingMode mode, long[] out, int at)
    {
        // At an offset, as a value of a column other than its first.
        byte[] in = ("xx" + text + "yy").getBytes(US_ASCII);
        DecimalText.Parsed parsed = new DecimalText.Parsed();
        assertThat(parsed.parse(in, 2, in.length - 2)).as("%s parses", text).isTrue();
        return DecimalScaling.rescale(parsed, in, precision, scale, mode, out, at);
    }

    private static BigInteger read(long[] out, int at, int precision)
    {
        return precision <= 18 ? BigInteger.valueOf(out[at]) : Int128.valueOf(out[at], out[at + 1]).toBigInteger();
    }
}
