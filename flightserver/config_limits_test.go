package flightserver

import (
	"runtime"
	"testing"
)

// TestLimitDefaults: the limits' zero values resolve to their documented
// defaults, which follow MaxStreams and MaxRequestBytes; values given
// stay.
func TestLimitDefaults(t *testing.T) {
	data := t.TempDir()
	c := Config{DataDir: data}
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	streams := 2 * runtime.GOMAXPROCS(0)
	if c.MaxRequestBytes != DefaultMaxRequestBytes || c.MaxDecodeBytes != 2*DefaultMaxRequestBytes ||
		c.MaxRequests != 64+4*streams || c.MaxConnStreams != DefaultMaxConnStreams {
		t.Fatalf("zero limits resolved to %+v", c)
	}
	if c.MaxConns != DefaultMaxConns || c.StreamStallTimeout != DefaultStreamStallTimeout || c.HandshakeTimeout != DefaultHandshakeTimeout ||
		c.ConnIdleTimeout != DefaultConnIdleTimeout || c.ConnMaxAge != 0 || c.ConnMaxAgeGrace != DefaultConnMaxAgeGrace {
		t.Fatalf("zero connection limits resolved to %+v", c)
	}
	c = Config{DataDir: data, MaxStreams: 3, MaxRequestBytes: 1000, MaxDecodeBytes: 5000, MaxRequests: 7, MaxConnStreams: 2}
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	if c.MaxRequestBytes != 1000 || c.MaxDecodeBytes != 5000 || c.MaxRequests != 7 || c.MaxConnStreams != 2 {
		t.Fatalf("given limits resolved to %+v", c)
	}
	c = Config{DataDir: data, MaxRequestBytes: 1000}
	if err := c.resolve(); err != nil || c.MaxDecodeBytes != 2000 {
		t.Fatalf("MaxDecodeBytes for MaxRequestBytes 1000: %d, %v", c.MaxDecodeBytes, err)
	}
}
