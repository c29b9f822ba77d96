package main

// The Cassandra image's four layers, in the order they change least to
// most: the system (users, directories, shared libraries), the Java
// runtime, Cassandra's jars, and the configuration with the entrypoint.

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
)

// cassandraParts are the layers to write and the host files they copy
// besides the inputs known beforehand (for the stamp).
type cassandraParts struct {
	goarch    string
	layers    []cassandraLayer
	hostFiles []string
}

type cassandraLayer struct {
	what    string // its line in the image's history
	entries []entry
}

// assembleCassandra builds the runtime and the entrypoint in work and
// lists the layers' entries.
func assembleCassandra(ctx context.Context, o cassandraOptions, in cassandraInputs, work string) (cassandraParts, error) {
	mods, err := javaModules(ctx, in.jdk, in.jars)
	if err != nil {
		return cassandraParts{}, err
	}
	jre := filepath.Join(work, "jre")
	if err := jlinkRuntime(ctx, in.jdk, mods, jre); err != nil {
		return cassandraParts{}, err
	}
	elfs, own, err := runtimeELFs(jre)
	if err != nil {
		return cassandraParts{}, err
	}
	jarLibs, err := jarELFs(in.jars, o.goarch, filepath.Join(work, "jar-natives"))
	if err != nil {
		return cassandraParts{}, err
	}
	native, err := lddDeps(ctx, append(elfs, jarLibs...), own, work)
	if err != nil {
		return cassandraParts{}, err
	}
	bin := filepath.Join(work, "cassandra-entrypoint")
	if err := compilePackage(o.goCmd, filepath.Join(o.repo, "deploy", "image"), "./cmd/cassandra-entrypoint", o.goarch, bin); err != nil {
		return cassandraParts{}, err
	}
	javaEntries, err := treeEntries(jre, cassandra.JavaHome)
	if err != nil {
		return cassandraParts{}, err
	}
	jars, err := jarEntries(in.jars)
	if err != nil {
		return cassandraParts{}, err
	}
	return cassandraParts{
		goarch: o.goarch,
		layers: []cassandraLayer{
			{"users, directories, and the shared libraries of the Java runtime and the jars' native code", systemEntries(native)},
			{"Java runtime: jlink of " + strings.Join(mods, ","), javaEntries},
			{fmt.Sprintf("Cassandra %d jars", len(jars)), jars},
			{"configuration and the entrypoint", configEntries(bin)},
		},
		hostFiles: native.hostFiles(),
	}, nil
}

// owned is an entry of the cassandra user.
func owned(e entry) entry {
	e.uid, e.gid = cassandra.UID, cassandra.GID
	return e
}

func imagePath(p string) string { return strings.TrimPrefix(p, "/") }

// systemEntries are the users, the directories the official image has
// (the user's own where Cassandra writes; /tmp sticky and open to all)
// and the native files.
func systemEntries(n nativeFiles) []entry {
	es := []entry{
		{name: "etc/passwd", data: []byte(cassandra.Passwd()), mode: 0o644},
		{name: "etc/group", data: []byte(cassandra.Group()), mode: 0o644},
		{name: "etc/nsswitch.conf", data: []byte(cassandra.NSSwitch), mode: 0o644},
		{name: imagePath(cassandra.Tmp), mode: 0o1777},
		{name: "root", mode: 0o700},
		owned(entry{name: imagePath(cassandra.UserHome), mode: 0o755}),
		owned(entry{name: imagePath(cassandra.Data), mode: 0o755}),
		owned(entry{name: imagePath(cassandra.Logs), mode: 0o755}),
	}
	for _, d := range cassandra.DataDirs {
		es = append(es, owned(entry{name: imagePath(cassandra.Data) + "/" + d, mode: 0o755}))
	}
	for name, host := range n.files {
		es = append(es, entry{name: name, source: host, mode: hostMode(host)})
	}
	for name, target := range n.links {
		es = append(es, entry{name: name, link: target, mode: 0o777})
	}
	return withParents(es)
}

// configEntries are /etc/cassandra's files, the user's to rewrite, the
// official image's symlinks under CASSANDRA_HOME, and the entrypoint
// with nodetool beside it.
func configEntries(bin string) []entry {
	conf := imagePath(cassandra.Conf)
	es := []entry{
		{name: imagePath(cassandra.Home) + "/conf", link: cassandra.Conf, mode: 0o777},
		{name: imagePath(cassandra.Home) + "/data", link: cassandra.Data, mode: 0o777},
		{name: imagePath(cassandra.Home) + "/logs", link: cassandra.Logs, mode: 0o777},
		{name: imagePath(cassandra.Entrypoint), source: bin, mode: 0o555},
		{name: imagePath(cassandra.Nodetool), link: filepath.Base(cassandra.Entrypoint), mode: 0o777},
		owned(entry{name: conf, mode: 0o755}),
	}
	files := cassandra.ConfFiles()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		es = append(es, owned(entry{name: conf + "/" + name, data: []byte(files[name]), mode: 0o644}))
	}
	return withParents(es)
}

// jarEntries put every jar of the classpath in Lib under its own name;
// two jars of one name (the same artifact from two groups) would hide
// one another there, and fail the build.
func jarEntries(jars []string) ([]entry, error) {
	var es []entry
	seen := map[string]string{}
	for _, j := range jars {
		base := filepath.Base(j)
		if prev, ok := seen[base]; ok {
			return nil, fmt.Errorf("two jars named %s on Cassandra's classpath: %s and %s", base, prev, j)
		}
		seen[base] = j
		es = append(es, entry{name: imagePath(cassandra.Lib) + "/" + base, source: j, mode: 0o644})
	}
	return withParents(es), nil
}

// treeEntries are the files, directories and symlinks under dir on the
// host, at root in the image, owned by root.
func treeEntries(dir, root string) ([]entry, error) {
	var es []entry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		name := imagePath(filepath.Join(root, rel))
		switch {
		case d.IsDir():
			es = append(es, entry{name: name, mode: 0o755})
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			es = append(es, entry{name: name, link: target, mode: 0o777})
		case d.Type().IsRegular():
			es = append(es, entry{name: name, source: path, mode: hostMode(path)})
		default:
			return fmt.Errorf("%s: neither file, directory nor symlink", path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s for the image: %w", dir, err)
	}
	return withParents(es), nil
}

// hostMode is 0755 for a host file any may execute, else 0644: the
// image's files are root's and the same whatever the host's umask.
func hostMode(path string) int64 {
	if fi, err := os.Stat(path); err == nil && fi.Mode()&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// withParents adds the missing parent directories of es (root's, 0755),
// marks directories with a trailing slash, and sorts by name, so parents
// come before their children and the layer repeats.
func withParents(es []entry) []entry {
	have := map[string]bool{}
	for _, e := range es {
		have[e.name] = true
	}
	for _, e := range es {
		for d := filepath.Dir(e.name); d != "." && !have[d]; d = filepath.Dir(d) {
			have[d] = true
			es = append(es, entry{name: d, mode: 0o755})
		}
	}
	for i := range es {
		if es[i].source == "" && es[i].data == nil && es[i].link == "" {
			es[i].name += "/"
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return es
}
