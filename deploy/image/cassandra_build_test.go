package main

// The Cassandra image builder's own pieces, without building the image:
// reading ldd, the layers' directory entries, and the stamp.

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestParseLDD(t *testing.T) {
	out := []byte(`	linux-vdso.so.1 (0x00007ffd1a1f5000)
	libjvm.so => not found
	libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f5b7c7d0000)
	libjli.so => /opt/jre/bin/../lib/libjli.so (0x00007f5b7c7c0000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5b7c5ef000)
	/lib64/ld-linux-x86-64.so.2 (0x00007f5b7c7f5000)
`)
	got, err := parseLDD(out, map[string]bool{"libjvm.so": true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/lib/x86_64-linux-gnu/libz.so.1", "/opt/jre/bin/../lib/libjli.so", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}
	if !slices.Equal(got, want) {
		t.Errorf("parseLDD = %q, want %q", got, want)
	}
	// A library neither the loader nor the runtime has fails the build.
	if _, err := parseLDD(out, nil); err == nil {
		t.Error("parseLDD with libjvm.so not found and not the runtime's: no error")
	}
}

// Every layer holds its parents, directories end in a slash, and the
// order is the names', so the layer repeats.
func TestWithParents(t *testing.T) {
	es := withParents([]entry{
		{name: "usr/local/bin/x", data: []byte{}},
		{name: "etc/cassandra", mode: 0o700, uid: 999},
		{name: "etc/cassandra/a.yaml", data: []byte("a")},
		{name: "lib", link: "usr/lib"},
	})
	var names []string
	for _, e := range es {
		names = append(names, e.name)
	}
	want := []string{"etc/", "etc/cassandra/", "etc/cassandra/a.yaml", "lib", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/x"}
	if !slices.Equal(names, want) {
		t.Errorf("withParents names %q, want %q", names, want)
	}
	if es[1].uid != 999 || es[1].mode != 0o700 {
		t.Errorf("a given directory lost its owner or mode: %+v", es[1])
	}
}

// The stamp is current until an input or the tarball changes.
func TestStampCurrent(t *testing.T) {
	dir := t.TempDir()
	touch := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jar, jmod, lib, tar := touch("a.jar", "jar"), touch("java.base.jmod", "jmod"), touch("libc.so.6", "libc"), touch("cassandra.tar", "tar")
	in := cassandraInputs{jars: []string{jar}, jdkFiles: []string{jmod}, sources: "s1", goVersion: "go1"}
	bin, m := standIn(t)
	img, err := platformImage(m, "amd64", bin)
	if err != nil {
		t.Fatal(err)
	}
	st, err := newStamp(in, []string{lib}, tar, img)
	if err != nil {
		t.Fatal(err)
	}
	if !st.current(in, tar) {
		t.Fatal("a fresh stamp is not current")
	}
	changed := in
	changed.sources = "s2"
	if st.current(changed, tar) {
		t.Error("stamp current after the sources changed")
	}
	changed = in
	changed.jdkFiles = []string{jmod, touch("jdk.new.jmod", "new")}
	if st.current(changed, tar) {
		t.Error("stamp current after the JDK gained a module")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(lib, later, later); err != nil {
		t.Fatal(err)
	}
	if st.current(in, tar) {
		t.Error("stamp current after a host library changed")
	}
}
