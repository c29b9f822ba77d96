package main

import "testing"

func TestSetYAMLKey(t *testing.T) {
	for _, c := range []struct{ text, key, value, want string }{
		{"a: 1\nlisten_address: localhost\nb: 2\n", "listen_address", "10.0.0.1", "a: 1\nlisten_address: 10.0.0.1\nb: 2\n"},
		{"# broadcast_address: 1.2.3.4\n", "broadcast_address", "10.0.0.1", "broadcast_address: 10.0.0.1\n"},
		{"a: 1", "num_tokens", "4", "a: 1\nnum_tokens: 4\n"},
		// A nested key of the same name is not the top-level one.
		{"x:\n  listen_address: y\n", "listen_address", "z", "x:\n  listen_address: y\nlisten_address: z\n"},
		{"cluster_name: 'Test Cluster'\n", "cluster_name", "a: b # c", "cluster_name: 'a: b # c'\n"},
		{"cluster_name: x\n", "cluster_name", "it's", "cluster_name: 'it''s'\n"},
	} {
		if got := setYAMLKey(c.text, c.key, c.value); got != c.want {
			t.Errorf("setYAMLKey(%q, %s, %q) = %q, want %q", c.text, c.key, c.value, got, c.want)
		}
	}
}

func TestSetSeeds(t *testing.T) {
	text := "seed_provider:\n  - class_name: x\n    parameters:\n      - seeds: \"127.0.0.1:7000\"\n"
	got, err := setSeeds(text, "a-0.svc,$b")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed_provider:\n  - class_name: x\n    parameters:\n      - seeds: \"a-0.svc,$b\"\n"; got != want {
		t.Errorf("setSeeds = %q, want %q", got, want)
	}
	if _, err := setSeeds("a: 1\n", "x"); err == nil {
		t.Error("setSeeds without a seeds line: no error")
	}
}

func TestSetProperty(t *testing.T) {
	if got := setProperty("# c\ndc=dc1\nrack=rack1\n", "dc", "east"); got != "# c\ndc=east\nrack=rack1\n" {
		t.Errorf("setProperty dc = %q", got)
	}
	if got := setProperty("dc=dc1", "prefer_local", "true"); got != "dc=dc1\nprefer_local=true\n" {
		t.Errorf("setProperty append = %q", got)
	}
}
