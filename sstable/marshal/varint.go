package marshal

import "math/big"

// IntegerType (CQL varint) values, and the unscaled part of DecimalType
// values after its 4-byte scale, are Java's BigInteger.toByteArray(): big-endian
// two's complement in the fewest bytes that keep the sign bit, so 127 is
// 7f, 128 is 00 80, -128 is 80 and -129 is ff 7f. Cassandra writes that
// shortest form; a longer one (a redundant ff or 00 in front) reads as the
// same number, as Java's BigInteger(byte[]) reads it.

// AppendVarInt appends v in BigInteger.toByteArray's form to dst.
func AppendVarInt(dst []byte, v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			dst = append(dst, 0) // room for the sign bit
		}
		return append(dst, b...)
	}
	// -v-1 has the bits of v inverted; its magnitude needs a leading 0xff
	// when its top bit would not carry the sign.
	m := new(big.Int).Neg(v)
	b := m.Sub(m, big.NewInt(1)).Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		dst = append(dst, 0xff)
	}
	for _, c := range b {
		dst = append(dst, ^c)
	}
	return dst
}

// DecodeVarInt reads a whole value in BigInteger's two's complement form,
// the shortest or not; an empty one is zero.
func DecodeVarInt(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}
