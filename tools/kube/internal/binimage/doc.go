// Package binimage packs static binaries into a container image and
// writes it as a docker-archive tarball, the format
// `ctr -n k8s.io images import` reads: how kube-harness's node gets its
// pause image and how tests get images of their own programs, with no
// registry and no docker engine. go-containerregistry computes the
// digests and writes the archive.
package binimage
