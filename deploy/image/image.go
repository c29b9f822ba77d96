package main

// The image of one platform and the index of all of them, from the
// facts in spec.go.

import (
	"fmt"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// meta is what the image says of its sources, in its OCI labels and
// annotations.
type meta struct {
	source   string    // the repository's URL
	version  string    // git describe
	revision string    // the commit
	created  time.Time // the commit's time: fixed, so builds repeat
}

// labels are the OCI annotation keys the config's labels and the
// index's annotations carry.
func (m meta) labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "sstable-flight",
		"org.opencontainers.image.description": "Serves a Cassandra node's SSTables as Arrow over Arrow Flight",
		"org.opencontainers.image.source":      m.source,
		"org.opencontainers.image.version":     m.version,
		"org.opencontainers.image.revision":    m.revision,
		"org.opencontainers.image.created":     m.created.UTC().Format(time.RFC3339),
	}
}

// config is the image's runtime configuration: the spec's user,
// entrypoint, arguments, ports and volumes. No environment: the server
// takes its settings from flags (and its secrets from files or the
// deployment's own environment).
func (m meta) config() v1.Config {
	return v1.Config{
		User:         user(),
		Entrypoint:   entrypoint(),
		Cmd:          args(),
		ExposedPorts: set(exposedPorts()),
		Volumes:      set(volumes()),
		WorkingDir:   "/",
		Labels:       m.labels(),
	}
}

func set(keys []string) map[string]struct{} {
	s := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		s[k] = struct{}{}
	}
	return s
}

// platformImage is the image of binary, built for linux/goarch.
func platformImage(m meta, goarch, binary string) (v1.Image, error) {
	layer, err := buildLayer(binary, m.created)
	if err != nil {
		return nil, err
	}
	cf := &v1.ConfigFile{
		Architecture: goarch,
		OS:           "linux",
		Created:      v1.Time{Time: m.created},
		Config:       m.config(),
		RootFS:       v1.RootFS{Type: "layers"},
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.ConfigFile(base, cf)
	if err != nil {
		return nil, fmt.Errorf("set the config of linux/%s: %w", goarch, err)
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: m.created},
			CreatedBy: "deploy/image: " + binaryPath + " and the volumes' mount points",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("add the layer of linux/%s: %w", goarch, err)
	}
	return img, nil
}

// index is the multi-platform index of images (by GOARCH), in the
// order of their names so it repeats.
func index(m meta, images map[string]v1.Image) v1.ImageIndex {
	arches := make([]string, 0, len(images))
	for a := range images {
		arches = append(arches, a)
	}
	sort.Strings(arches)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, a := range arches {
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        images[a],
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: a}},
		})
	}
	return mutate.Annotations(idx, m.labels()).(v1.ImageIndex)
}
