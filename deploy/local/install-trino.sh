#!/usr/bin/env bash
# Installs the Trino server the connector's integration tests run, once,
# and prints its directory: io.trino:trino-server:476:tar.gz from Maven
# Central (through Maven, so ~/.m2/repository caches the 820 MB tarball
# for CI), unpacked whole into build/trino/trino-server-476 (its plugins
# share files through hard links, so a subset does not unpack); the tests
# point plugin.dir at a folder of their own holding only what they load.
# Idempotent: a complete install (marked by .installed) returns at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
version=${TRINO_VERSION:-476}
dest="$root/build/trino"
home="$dest/trino-server-$version"
if [[ -f $home/.installed ]]; then
  echo "$home"
  exit 0
fi
source "$root/deploy/local/java25.sh"

artifact="io.trino:trino-server:$version:tar.gz"
tarball="$HOME/.m2/repository/io/trino/trino-server/$version/trino-server-$version.tar.gz"
if [[ ! -f $tarball ]]; then
  echo "install-trino: fetching $artifact (about 820 MB) into ~/.m2" >&2
  MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
    mvn -B -q dependency:get -Dartifact="$artifact" -Dtransitive=false >&2
fi
[[ -f $tarball ]] || { echo "install-trino: $artifact did not resolve into $tarball" >&2; exit 1; }

rm -rf "$home" "$home.tmp"
mkdir -p "$home.tmp"
echo "install-trino: unpacking Trino $version into $home" >&2
tar -xzf "$tarball" -C "$home.tmp" --strip-components=1
touch "$home.tmp/.installed"
mv "$home.tmp" "$home"
echo "$home"
