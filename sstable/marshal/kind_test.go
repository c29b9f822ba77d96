package marshal

import "testing"

// TestValueWidth pins the payload width of every native type, as its
// serializer's validate reads it (CounterSerializer is LongSerializer),
// and checks it against the framing: a fixed-width type's values are
// exactly their fixed width.
func TestValueWidth(t *testing.T) {
	want := map[Kind]int{
		Ascii: -1, BigInt: 8, Blob: -1, Boolean: 1, Counter: 8, Date: 4,
		Decimal: -1, Double: 8, Duration: -1, Float: 4, Inet: -1, Int: 4,
		SmallInt: 2, Text: -1, Time: 8, Timestamp: 8, TimeUUID: 16,
		TinyInt: 1, UUID: 16, VarInt: -1, Empty: 0,
	}
	for k := Ascii; k <= Empty; k++ {
		t.Run(k.String(), func(t *testing.T) {
			w, ok := want[k]
			if !ok {
				t.Fatalf("no expectation for %v", k)
			}
			if got := k.ValueWidth(); got != w {
				t.Errorf("ValueWidth() = %d, want %d", got, w)
			}
			if f := (&Type{Kind: k}).FixedLength(); f >= 0 && f != w {
				t.Errorf("fixed length %d but value width %d", f, w)
			}
		})
	}
	for _, k := range []Kind{Invalid, List, Map, UDT, Vector, Kind(99), Kind(-1)} {
		if got := k.ValueWidth(); got != -1 {
			t.Errorf("%v.ValueWidth() = %d, want -1", k, got)
		}
	}
}

func TestCQLNative(t *testing.T) {
	for k := Ascii; k <= Empty; k++ {
		if got, ok := CQLNative(k.String()); !ok || got != k {
			t.Errorf("CQLNative(%q) = %v, %t; want %v", k.String(), got, ok, k)
		}
	}
	if got, ok := CQLNative("varchar"); !ok || got != Text {
		t.Errorf("CQLNative(varchar) = %v, %t; want text", got, ok)
	}
	for _, name := range []string{"", "list", "frozen", "tuple", "vector", "Int", "INT", "address", "invalid", "udt"} {
		if got, ok := CQLNative(name); ok {
			t.Errorf("CQLNative(%q) = %v, want no kind", name, got)
		}
	}
}
