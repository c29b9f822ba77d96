package dump

// Text forms of the Java library calls Cassandra's AbstractType.toJSONString
// and getString end in: Double/Float.toString, BigDecimal.toString and
// toPlainString, java.time date formatting, InetAddress.getHostAddress,
// cql3.Duration.toString and Jackson's JSON string quoting. sstabledump's
// output is only as comparable as these are faithful, so each function
// states the Java rule it follows.

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// javaDouble formats v as Java's Double.toString (bits 64) or
// Float.toString (bits 32) with the JDK 19+ digit selection: the shortest
// decimal that rounds back to v, widened to two digits when one would do
// (Float.MIN_VALUE is "1.4E-45", not "1.0E-45"). Older JDKs sometimes print
// a longer digit string for the same value; the number is the same.
func javaDouble(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(v, 'e', -1, bits)
	if m, _, _ := strings.Cut(s, "e"); len(strings.TrimLeft(m, "-")) == 1 {
		s = strconv.FormatFloat(v, 'e', 1, bits)
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	// Java writes 10^-3 <= |v| < 10^7 in plain notation, the rest as
	// d.dddE[-]n, always with at least one digit after the point.
	if exp >= -3 && exp < 7 {
		if exp < 0 {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
			return b.String()
		}
		if len(digits) <= exp+1 {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", exp+1-len(digits)))
			b.WriteString(".0")
			return b.String()
		}
		b.WriteString(digits[:exp+1])
		b.WriteByte('.')
		b.WriteString(digits[exp+1:])
		return b.String()
	}
	b.WriteByte(digits[0])
	b.WriteByte('.')
	if len(digits) > 1 {
		b.WriteString(digits[1:])
	} else {
		b.WriteByte('0')
	}
	b.WriteByte('E')
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// javaBigDecimal formats unscaled×10^-scale as BigDecimal.toString: plain
// when scale >= 0 and the adjusted exponent is >= -6, otherwise scientific
// with a signed exponent ("1E+10", "-1E-21", "1.50E+3").
func javaBigDecimal(unscaled *big.Int, scale int32) string {
	sign, digits := signDigits(unscaled)
	adjusted := -int64(scale) + int64(len(digits)-1)
	if scale >= 0 && adjusted >= -6 {
		return sign + plainDigits(digits, int64(scale))
	}
	var b strings.Builder
	b.WriteString(sign)
	b.WriteByte(digits[0])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('E')
	if adjusted >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.FormatInt(adjusted, 10))
	return b.String()
}

// javaBigDecimalPlain formats as BigDecimal.toPlainString, which
// DecimalSerializer.toString (and so getString) uses: never an exponent.
func javaBigDecimalPlain(unscaled *big.Int, scale int32) string {
	sign, digits := signDigits(unscaled)
	if scale < 0 {
		if unscaled.Sign() == 0 {
			// toPlainString special-cases zero: "0", not "000".
			return "0"
		}
		return sign + digits + strings.Repeat("0", int(-int64(scale)))
	}
	return sign + plainDigits(digits, int64(scale))
}

// signDigits splits a BigDecimal's unscaled value into its sign ("-" or
// "") and the decimal digits of its magnitude, which both toString forms
// then place.
func signDigits(unscaled *big.Int) (sign, digits string) {
	if unscaled.Sign() < 0 {
		sign = "-"
	}
	return sign, new(big.Int).Abs(unscaled).String()
}

// plainDigits places a decimal point scale digits from the right of
// digits, padding with leading zeros ("5", 3 → "0.005").
func plainDigits(digits string, scale int64) string {
	if scale == 0 {
		return digits
	}
	if int64(len(digits)) > scale {
		p := int64(len(digits)) - scale
		return digits[:p] + "." + digits[p:]
	}
	return "0." + strings.Repeat("0", int(scale-int64(len(digits)))) + digits
}

// javaYearOfEra writes a year the way a java.time "yyyy" pattern does:
// the year of era (so 1 BC is 1 and 2 BC is 2), zero-padded to four digits,
// with a '+' once it needs more than four (SignStyle.EXCEEDS_PAD).
func javaYearOfEra(b *strings.Builder, year int) {
	if year <= 0 {
		year = 1 - year
	}
	s := strconv.Itoa(year)
	if len(s) > 4 {
		b.WriteByte('+')
	}
	b.WriteString(strings.Repeat("0", max(0, 4-len(s))))
	b.WriteString(s)
}

// javaISOYear writes a year as ISO_LOCAL_DATE does: proleptic year, four
// digits zero-padded, '-' below year 0 and '+' above 9999.
func javaISOYear(b *strings.Builder, year int) {
	abs := year
	if year < 0 {
		b.WriteByte('-')
		abs = -year
	} else if year > 9999 {
		b.WriteByte('+')
	}
	s := strconv.Itoa(abs)
	b.WriteString(strings.Repeat("0", max(0, 4-len(s))))
	b.WriteString(s)
}

func pad(b *strings.Builder, v, width int) {
	s := strconv.Itoa(v)
	b.WriteString(strings.Repeat("0", max(0, width-len(s))))
	b.WriteString(s)
}

// writeMonthDay writes the "-MM-dd" that follows the year in timestamps
// and dates alike.
func writeMonthDay(b *strings.Builder, t time.Time) {
	b.WriteByte('-')
	pad(b, int(t.Month()), 2)
	b.WriteByte('-')
	pad(b, t.Day(), 2)
}

// writeClock writes "HH:mm:ss." and a fraction of width digits, the time
// of day of timestamps (milliseconds) and times (nanoseconds) alike.
func writeClock(b *strings.Builder, hour, minute, second, frac, width int) {
	pad(b, hour, 2)
	b.WriteByte(':')
	pad(b, minute, 2)
	b.WriteByte(':')
	pad(b, second, 2)
	b.WriteByte('.')
	pad(b, frac, width)
}

// javaTimestamp formats epoch milliseconds in UTC as "yyyy-MM-dd HH:mm:ss.SSSX"
// (sep ' ', TimestampSerializer's JSON format) or
// "yyyy-MM-dd'T'HH:mm:ss.SSSX" (sep 'T', its UTC format used by getString),
// proleptic Gregorian. X prints a zero offset as "Z".
func javaTimestamp(ms int64, sep byte) string {
	t := time.UnixMilli(ms).UTC()
	var b strings.Builder
	javaYearOfEra(&b, t.Year())
	writeMonthDay(&b, t)
	b.WriteByte(sep)
	writeClock(&b, t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6, 3)
	b.WriteByte('Z')
	return b.String()
}

// javaDate formats a CQL date, stored as days since the epoch offset by
// 2^31 so that it sorts unsigned, as SimpleDateSerializer.toString does
// (ISO_LOCAL_DATE in UTC).
func javaDate(raw uint32) string {
	days := int64(raw) - (1 << 31)
	t := time.Unix(days*86400, 0).UTC()
	var b strings.Builder
	javaISOYear(&b, t.Year())
	writeMonthDay(&b, t)
	return b.String()
}

// javaTime formats nanoseconds since midnight as TimeSerializer.toString:
// "HH:mm:ss.nnnnnnnnn", always nine fraction digits. ok is false outside a
// day, where Cassandra's own output is meaningless (it asserts).
func javaTime(nanos int64) (string, bool) {
	if nanos < 0 || nanos >= 86400*1e9 {
		return "", false
	}
	var b strings.Builder
	writeClock(&b, int(nanos/3600e9), int(nanos/60e9%60), int(nanos/1e9%60), int(nanos%1e9), 9)
	return b.String(), true
}

// javaInet formats an address as InetAddress.getByAddress(b).getHostAddress():
// IPv4 dotted; IPv6 as eight lower-case hex groups without leading zeros
// and without "::" compression. getByAddress turns an IPv4-mapped IPv6
// address (::ffff:a.b.c.d) into an Inet4Address, so it prints dotted.
func javaInet(b []byte) (string, bool) {
	if len(b) == 16 {
		mapped := true
		for i := 0; i < 10 && mapped; i++ {
			mapped = b[i] == 0
		}
		if mapped && b[10] == 0xff && b[11] == 0xff {
			b = b[12:]
		}
	}
	var s strings.Builder
	switch len(b) {
	case 4:
		for i, x := range b {
			if i > 0 {
				s.WriteByte('.')
			}
			s.WriteString(strconv.Itoa(int(x)))
		}
	case 16:
		for i := 0; i < 16; i += 2 {
			if i > 0 {
				s.WriteByte(':')
			}
			s.WriteString(strconv.FormatUint(uint64(b[i])<<8|uint64(b[i+1]), 16))
		}
	default:
		return "", false
	}
	return s.String(), true
}

// javaDuration formats a duration as cql3.Duration.toString: a '-' if any
// part is negative, then the non-zero units among y, mo, d, h, m, s, ms,
// us, ns. A zero duration prints as the empty string.
func javaDuration(months, days int32, nanos int64) string {
	var b strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		b.WriteByte('-')
	}
	appendUnit := func(dividend, divisor uint64, unit string) uint64 {
		if dividend == 0 || dividend < divisor {
			return dividend
		}
		b.WriteString(strconv.FormatUint(dividend/divisor, 10))
		b.WriteString(unit)
		return dividend % divisor
	}
	rem := appendUnit(absU64(int64(months)), 12, "y")
	appendUnit(rem, 1, "mo")
	appendUnit(absU64(int64(days)), 1, "d")
	if nanos != 0 {
		rem = appendUnit(absU64(nanos), 3600e9, "h")
		rem = appendUnit(rem, 60e9, "m")
		rem = appendUnit(rem, 1e9, "s")
		rem = appendUnit(rem, 1e6, "ms")
		rem = appendUnit(rem, 1e3, "us")
		appendUnit(rem, 1, "ns")
	}
	return b.String()
}

// absU64 is |v| without overflow at math.MinInt64 (Java's Math.abs would
// stay negative there; such a duration cannot be written by CQL).
func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// jsonQuote returns s as a JSON string literal the way Jackson's
// JsonStringEncoder.quoteAsString (Cassandra's JsonUtils.quoteAsJsonString)
// escapes it, with the surrounding quotes: '"' and '\\' backslashed, control
// characters as \b \t \n \f \r or \u00XX, everything else verbatim. s must
// be valid UTF-8.
func jsonQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	jsonEscapeTo(&b, s)
	b.WriteByte('"')
	return b.String()
}

func jsonEscapeTo(b *strings.Builder, s string) {
	const hexUpper = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexUpper[c>>4])
			b.WriteByte(hexUpper[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
}

// validUTF8 reports whether b decodes as Java's strict UTF-8 decoder would
// accept it (Go's rules match: no surrogates, no overlongs).
func validUTF8(b []byte) bool { return utf8.Valid(b) }
