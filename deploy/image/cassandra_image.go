package main

// The Cassandra image from its layers, and its docker-save tarball.

import (
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/sstable-flight/sstable-flight/deploy/image/cassandra"
	"github.com/sstable-flight/sstable-flight/internal/testkit/cassandratest"
)

// cassandraCreated is every time in the image: the epoch, so the same
// inputs give the same digest on any day.
var cassandraCreated = time.Unix(0, 0).UTC()

// cassandraCmd is the official image's CMD.
var cassandraCmd = []string{"cassandra", "-f"}

// cassandraConfig is the image's runtime configuration: the official
// image's environment, ports and volume, its user by number, and the
// entrypoint.
func cassandraConfig() v1.Config {
	return v1.Config{
		User:         cassandra.User(),
		Entrypoint:   []string{cassandra.Entrypoint},
		Cmd:          cassandraCmd,
		Env:          cassandra.Env(),
		ExposedPorts: set(cassandra.ExposedPorts()),
		Volumes:      set([]string{cassandra.Data}),
		Labels: map[string]string{
			"org.opencontainers.image.title":       "sstf-cassandra",
			"org.opencontainers.image.description": "Apache Cassandra " + cassandratest.Version + " for sstable-flight's tests, built from Maven's jars and a jlinked JDK 17",
			"org.opencontainers.image.version":     cassandratest.Version,
		},
	}
}

func cassandraImage(p cassandraParts) (v1.Image, error) {
	cf := &v1.ConfigFile{
		Architecture: p.goarch,
		OS:           "linux",
		Created:      v1.Time{Time: cassandraCreated},
		Config:       cassandraConfig(),
		RootFS:       v1.RootFS{Type: "layers"},
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.ConfigFile(base, cf)
	if err != nil {
		return nil, fmt.Errorf("set the Cassandra image's config: %w", err)
	}
	for _, l := range p.layers {
		layer, err := newLayer(l.entries, cassandraCreated, l.what)
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:   layer,
			History: v1.History{Created: v1.Time{Time: cassandraCreated}, CreatedBy: "deploy/image cassandra: " + l.what},
		})
		if err != nil {
			return nil, fmt.Errorf("add the layer of %s: %w", l.what, err)
		}
	}
	return img, nil
}

// writeCassandraTarball writes img as a docker-save tarball with its one
// tag, beside path and then into place.
func writeCassandraTarball(path string, img v1.Image) error {
	tag, err := name.NewTag(cassandraTag())
	if err != nil {
		return fmt.Errorf("tag the Cassandra image %q: %w", cassandraTag(), err)
	}
	tmp := path + ".tmp"
	if err := tarball.WriteToFile(tmp, tag, img); err != nil {
		return fmt.Errorf("write the tarball %s: %w", tmp, err)
	}
	return replace(tmp, path)
}
