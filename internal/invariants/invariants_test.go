package invariants

import (
	"bytes"
	"testing"
)

func TestPoison(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 64, 1000, 4097} {
		b := make([]byte, n)
		if n > 0 && Poisoned(b) {
			t.Fatalf("%d zero bytes read as poisoned", n)
		}
		Poison(b)
		if !bytes.Equal(b, bytes.Repeat([]byte{PoisonByte}, n)) || !Poisoned(b) {
			t.Fatalf("Poison of %d bytes: %x", n, b)
		}
		if n > 0 {
			b[n-1] = 0
			if Poisoned(b) {
				t.Fatalf("%d bytes with the last one written read as poisoned", n)
			}
		}
	}
}

func TestKept(t *testing.T) {
	var k Kept[[]byte]
	if Enabled != (k.P() != nil) {
		t.Fatalf("Enabled %v but P() %v", Enabled, k.P())
	}
}

func TestPanicMessage(t *testing.T) {
	if got := PanicMessage(func() {}); got != "" {
		t.Errorf("no panic: %q", got)
	}
	if got := PanicMessage(func() { panic("released twice") }); got != "released twice" {
		t.Errorf("string panic: %q", got)
	}
	if got := PanicMessage(func() { var m map[string]int; m["x"] = 1 }); got == "" {
		t.Error("a runtime error read as no panic")
	}
}
