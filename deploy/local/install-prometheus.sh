#!/usr/bin/env bash
# Installs Debian's prometheus package (2.42) for the dashboard test
# (deploy/grafana) WITHOUT installing it into the system: apt-get download
# fetches the .deb and dpkg-deb -x unpacks it into build/prometheus, so no
# maintainer script runs, no service is enabled and nothing is started. The
# test runs build/prometheus/usr/bin/prometheus itself, on loopback, for its
# own length. Prints the binary's path. Idempotent: a complete unpack
# (marked by .installed) returns at once.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest="$root/build/prometheus"
bin="$dest/usr/bin/prometheus"
if [[ -f $dest/.installed && -x $bin ]]; then
  echo "$bin"
  exit 0
fi
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO=sudo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# apt-get download needs the package lists; fetch them only when the
# package is not known yet (a fresh machine), as apt-get update is slow.
if ! (cd "$work" && apt-get download -qq prometheus >/dev/null 2>&1); then
  echo "install-prometheus: apt-get update" >&2
  $SUDO apt-get update -qq
  (cd "$work" && apt-get download -qq prometheus >/dev/null)
fi
deb=$(ls "$work"/prometheus_*.deb)
rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"
echo "install-prometheus: unpacking $(basename "$deb") into $dest" >&2
dpkg-deb -x "$deb" "$dest.tmp"
[[ -x $dest.tmp/usr/bin/prometheus ]] || { echo "install-prometheus: $(basename "$deb") holds no usr/bin/prometheus" >&2; exit 1; }
touch "$dest.tmp/.installed"
mv "$dest.tmp" "$dest"
echo "$bin"
