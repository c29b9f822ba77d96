package io.sstableflight.trino;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DecimalText against BigDecimal itself: for the server's text of a value
 * ({@code <unscaled>e<-scale>}), the rewrite must be exactly
 * {@code new BigDecimal(text).toString()}, over edge cases and random
 * unscaled values and scales around every switch of BigDecimal's rule;
 * anything else is refused.
 */
class TestDecimalText
{
    private static String rewrite(String text)
    {
        // At an offset, as a value of a column other than its first.
        byte[] in = ("xx" + text + "yy").getBytes(UTF_8);
        byte[] out = new byte[3 + text.length() + DecimalText.MAX_GROWTH];
        DecimalText.Parsed parsed = new DecimalText.Parsed();
        if (!parsed.parse(in, 2, in.length - 2)) {
            return null;
        }
        int end = DecimalText.rewrite(parsed, in, out, 3);
        assertThat(end - 3).as("length of %s's text", text).isLessThanOrEqualTo(text.length() + DecimalText.MAX_GROWTH);
        return new String(out, 3, end - 3, UTF_8);
    }

    @Test
    void edgeCasesAreBigDecimalsText()
    {
        for (String text : List.of("12345e-2", "0e-2", "1e10", "-1e-21", "0e0", "0e3", "-0e-2", "7e0", "-7e0", "1e-6", "1e-7", "12e-7", "123e-8",
                "1e6", "10e-1", "1000000e-6", "123456789012345678901234567890123456789e-9", "-123456789012345678901234567890123456789e-9",
                "314159265358979323846264338327950288e-35", "1e2147483647", "1e-2147483647", "1e2147483648", "5e-2147483648", "007e-1", "00e0")) {
            assertThat(rewrite(text)).as(text).isEqualTo(bigDecimal(text));
        }
    }

    /** BigDecimal's text, or null where BigDecimal refuses the text (a scale outside int). */
    private static String bigDecimal(String text)
    {
        try {
            return new BigDecimal(text).toString();
        }
        catch (NumberFormatException e) {
            return null;
        }
    }

    @Test
    void randomValuesAreBigDecimalsText()
    {
        Random random = new Random(16);
        for (int i = 0; i < 10_000; i++) {
            BigInteger unscaled = new BigInteger(random.nextInt(1, 140), random);
            if (random.nextBoolean()) {
                unscaled = unscaled.negate();
            }
            int scale = switch (random.nextInt(3)) {
                case 0 -> random.nextInt(-12, 50);
                case 1 -> unscaled.abs().toString().length() + random.nextInt(-3, 10);
                default -> random.nextInt();
            };
            String text = unscaled + "e" + (-(long) scale);
            assertThat(rewrite(text)).as(text).isEqualTo(new BigDecimal(unscaled, scale).toString());
        }
    }

    @Test
    void anythingElseIsRefused()
    {
        for (String text : List.of("", "e", "1", "1.5", "1e", "e5", "-e5", "1e-", "1e+", "1ee5", "1e5x", "x1e5", "1e12345678901", "--1e1", "1e--1", " 1e1", "١e1")) {
            assertThat(rewrite(text)).as("\"%s\"", text).isNull();
        }
    }
}
