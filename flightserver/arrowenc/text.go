package arrowenc

import (
	"encoding/binary"
	"net/netip"
	"strconv"
	"unicode/utf8"

	"github.com/sstable-flight/sstable-flight/sstable/marshal"
)

// putText appends the kinds that map to Utf8 or Binary. inet, varint and
// decimal are rendered into a reused scratch buffer that the builder
// copies, so only a varint wider than 8 bytes allocates (math/big's
// formatting).
func (a *Appender) putText(v []byte, apply bool) error {
	switch a.kind {
	case marshal.Ascii, marshal.Text:
		// Arrow's Utf8 must hold valid UTF-8: clients may rely on it.
		// Cassandra validates on write, so this only catches damage.
		if !utf8.Valid(v) {
			return malformed("%s is not valid UTF-8", a.kind)
		}
		if apply {
			a.bin.Append(v)
		}
	case marshal.Blob:
		if apply {
			a.bin.Append(v)
		}
	case marshal.Inet:
		if len(v) != 4 && len(v) != 16 {
			return malformed("inet of %d bytes, want 4 or 16", len(v))
		}
		if apply {
			var addr netip.Addr
			if len(v) == 4 {
				addr = netip.AddrFrom4([4]byte(v))
			} else {
				addr = netip.AddrFrom16([16]byte(v))
			}
			a.text = addr.AppendTo(a.text[:0])
			a.bin.Append(a.text)
		}
	case marshal.VarInt:
		if apply {
			a.text = a.appendVarint(a.text[:0], v)
			a.bin.Append(a.text)
		}
	case marshal.Decimal:
		// A 4-byte scale then the unscaled varint. Rendered as
		// "<unscaled>e<-scale>", the corpus' canonical form: exact, and
		// the scale survives (1.0 and 1.00 are different decimals).
		if len(v) < 4 {
			return malformed("decimal of %d bytes, want at least 4", len(v))
		}
		if apply {
			scale := int32(binary.BigEndian.Uint32(v))
			a.text = a.appendVarint(a.text[:0], v[4:])
			a.text = append(a.text, 'e')
			a.text = strconv.AppendInt(a.text, -int64(scale), 10)
			a.bin.Append(a.text)
		}
	}
	return nil
}

// appendVarint appends the decimal digits of a big-endian two's
// complement integer; no bytes is zero.
func (a *Appender) appendVarint(dst, b []byte) []byte {
	if len(b) == 0 {
		return append(dst, '0')
	}
	if len(b) <= 8 {
		x := int64(int8(b[0])) // sign-extends
		for _, c := range b[1:] {
			x = x<<8 | int64(c)
		}
		return strconv.AppendInt(dst, x, 10)
	}
	mag := b
	if b[0]&0x80 != 0 {
		// Negate in place of a copy: invert, add one.
		a.mag = append(a.mag[:0], b...)
		for i := range a.mag {
			a.mag[i] = ^a.mag[i]
		}
		for i := len(a.mag) - 1; i >= 0; i-- {
			a.mag[i]++
			if a.mag[i] != 0 {
				break
			}
		}
		mag = a.mag
		dst = append(dst, '-')
	}
	a.big.SetBytes(mag)
	return a.big.Append(dst, 10)
}
