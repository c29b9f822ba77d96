package main

// The image's facts in one place: the builder writes them into the
// image's config and layer, the Dockerfile at the repository's root
// repeats them, and TestDockerfileMatchesSpec keeps the two equal.

import "strconv"

// uid and gid run the server: numeric (no /etc/passwd in an empty
// base to resolve a name), not root, and the number distroless images
// call nonroot, so clusters that allow it by policy allow this one.
const (
	uid = 65532
	gid = 65532
)

// binaryPath is where the server sits in the image and its entrypoint.
const binaryPath = "/sstable-flight"

// Ports the server listens on in the image: Flight (gRPC) and the admin
// HTTP port (/metrics).
const (
	flightPort = 8815
	adminPort  = 9102
)

// dataVolume is Cassandra's directory as the image expects it mounted
// (a sidecar shares the Cassandra pod's volume there): SSTables under
// data/, and the hardlink snapshots beside it in sstable-flight-snapshots
// (the server's default for --data-dir /var/lib/cassandra/data), on the
// same filesystem as hard links require. tmpVolume holds what the server
// keeps under $TMPDIR (the Sidecar mode's snapshot journal). Nothing else
// in the image is writable.
const (
	dataVolume = "/var/lib/cassandra"
	tmpVolume  = "/tmp"
)

// user is the config's User: uid:gid, numeric.
func user() string { return strconv.Itoa(uid) + ":" + strconv.Itoa(gid) }

// entrypoint is the binary alone; args carries the flags, so a
// deployment that gives its own args (Kubernetes args:, docker run's
// trailing words) replaces all of them.
func entrypoint() []string { return []string{binaryPath} }

// args listen on every address (the binary's own defaults are loopback
// only, of no use in a container) and read the data volume.
func args() []string {
	return []string{
		"--data-dir=" + dataVolume + "/data",
		"--listen=:" + strconv.Itoa(flightPort),
		"--admin-listen=:" + strconv.Itoa(adminPort),
	}
}

// exposedPorts are the config's ExposedPorts keys.
func exposedPorts() []string {
	return []string{strconv.Itoa(flightPort) + "/tcp", strconv.Itoa(adminPort) + "/tcp"}
}

// volumes are the config's Volumes keys.
func volumes() []string { return []string{dataVolume, tmpVolume} }
