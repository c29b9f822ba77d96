package main

// Pushing the built index to a registry, with the credentials docker
// and crane keep (~/.docker/config.json, credential helpers).

import (
	"flag"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func runPush(args []string) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "../../build/image/oci", "the OCI layout written by the build")
	insecure := fs.Bool("insecure", false, "allow a plain-HTTP registry")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("push: want one image reference (REGISTRY/REPO:TAG), got %d arguments", fs.NArg())
	}
	var nameOpts []name.Option
	if *insecure {
		nameOpts = append(nameOpts, name.Insecure)
	}
	ref, err := name.ParseReference(fs.Arg(0), nameOpts...)
	if err != nil {
		return fmt.Errorf("push: read the reference %q: %w", fs.Arg(0), err)
	}
	idx, err := readLayout(*dir)
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(ref, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return fmt.Errorf("push %s to %s: %w", *dir, ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("push: digest of the index: %w", err)
	}
	fmt.Println(ref.Context().Digest(d.String()))
	return nil
}

// readLayout returns the one index the build wrote into the OCI layout
// at dir.
func readLayout(dir string) (v1.ImageIndex, error) {
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("read the OCI layout %s: %w", dir, err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("read the index.json of %s: %w", dir, err)
	}
	if len(im.Manifests) != 1 || !im.Manifests[0].MediaType.IsIndex() {
		return nil, fmt.Errorf("read the OCI layout %s: want one image index in index.json, got %d entries", dir, len(im.Manifests))
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("read the index %s of %s: %w", im.Manifests[0].Digest, dir, err)
	}
	return idx, nil
}
