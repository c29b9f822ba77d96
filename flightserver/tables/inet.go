package tables

import (
	"fmt"
	"net/netip"
	"strings"
)

// inetBytes serializes an inet literal as Cassandra does: InetAddressType
// parses CQL's text with Java's InetAddress.getByName and stores
// getAddress(), so the bytes follow Java's literal rules, not Go's:
//
//   - IPv4 may have one to four parts, the last filling the remaining
//     bytes (BSD inet_aton: "1.2.772" and "16909060" are 1.2.3.4), all
//     decimal;
//   - an IPv4-mapped IPv6 address (::ffff:a.b.c.d in any spelling) is an
//     Inet4Address: the 4 bytes of the IPv4 address, so that is what a
//     key or clustering written that way holds. An IPv4-compatible one
//     (::a.b.c.d) stays 16 bytes;
//   - IPv6 may be in brackets, and its embedded IPv4 tail must be a
//     dotted quad;
//   - a zone ("%1") is not part of the bytes, and a mapped address takes
//     none.
//
// Host names, which Java would resolve, are not literals here.
func inetBytes(s string) ([]byte, error) {
	host, bracketed := strings.CutPrefix(s, "[")
	if bracketed {
		var ok bool
		if host, ok = strings.CutSuffix(host, "]"); !ok {
			return nil, fmt.Errorf("unclosed bracket")
		}
	} else if a, ok := javaIPv4(host); ok {
		return a[:], nil
	}
	host, zone, hasZone := strings.Cut(host, "%")
	if hasZone && zone == "" {
		return nil, fmt.Errorf("empty zone")
	}
	// Java reads an embedded IPv4 tail with its IPv4 rules (leading zeros
	// are decimal), which Go's parser does not: spell it as two groups.
	if i := strings.LastIndexByte(host, ':'); i >= 0 && strings.Contains(host[i+1:], ".") {
		tail := host[i+1:]
		a, ok := javaIPv4(tail)
		if !ok || strings.Count(tail, ".") != 3 {
			return nil, fmt.Errorf("IPv6 address with an IPv4 tail %q that is not a dotted quad", tail)
		}
		host = fmt.Sprintf("%s%x:%x", host[:i+1], uint16(a[0])<<8|uint16(a[1]), uint16(a[2])<<8|uint16(a[3]))
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return nil, fmt.Errorf("want an IPv4 or IPv6 literal (host names are not resolved): %w", err)
	}
	switch {
	case !a.Is6():
		return nil, fmt.Errorf("an IPv4 address in brackets")
	case a.Is4In6():
		if hasZone {
			return nil, fmt.Errorf("an IPv4-mapped address with a zone")
		}
		b := a.Unmap().As4()
		return b[:], nil
	}
	b := a.As16()
	return b[:], nil
}

// javaIPv4 is Java's IPAddressUtil.textToNumericFormatV4: one to four
// decimal parts separated by dots, each but the last one byte, the last
// filling the remaining bytes; at most 15 characters.
func javaIPv4(s string) ([4]byte, bool) {
	var out [4]byte
	if len(s) == 0 || len(s) > 15 {
		return out, false
	}
	var v uint64
	part, fresh := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if fresh || v > 0xff || part == 3 {
				return out, false
			}
			out[part] = byte(v)
			part++
			v, fresh = 0, true
		case c >= '0' && c <= '9':
			v = v*10 + uint64(c-'0')
			fresh = false
		default:
			return out, false
		}
	}
	if fresh || v >= 1<<((4-part)*8) {
		return out, false
	}
	for i := 3; i >= part; i-- {
		out[i] = byte(v)
		v >>= 8
	}
	return out, true
}
