#!/usr/bin/env bash
# Creates the Python virtualenv that the pyarrow Flight client check
# (flightserver/pyarrow_test.go, flightserver/testdata/pyflight_check.py)
# runs in: python3 -m venv plus pyarrow from PyPI, pinned.
#
#   bash deploy/local/pyenv.sh      prints the venv's python path on stdout
#
# The venv is ${SSTF_VENV:-build/venv} (a relative SSTF_VENV is taken from
# the current directory, the default from the repository root). Idempotent
# and quick when the pinned pyarrow already imports; concurrent runs
# serialize on a lock file beside the venv. Missing python3 or its venv
# module are installed from Debian the way install-deps.sh installs the JDK.
set -euo pipefail
PYARROW_VERSION=26.0.1

root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${SSTF_VENV:-$root/build/venv}
[[ $venv == /* ]] || venv=$PWD/$venv
py=$venv/bin/python

have_pyarrow() {
  [[ -x $py ]] && "$py" -c "import sys, pyarrow, pyarrow.flight; sys.exit(pyarrow.__version__ != '$PYARROW_VERSION')" 2>/dev/null
}
if have_pyarrow; then
  echo "$py"
  exit 0
fi

apt_install() {
  echo "pyenv: installing $*" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
command -v python3 >/dev/null || apt_install python3 python3-venv
# Debian splits venv's pip bootstrap (ensurepip) into python3-venv.
python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
command -v flock >/dev/null && flock 9
if ! have_pyarrow; then # another run may have built it while we waited
  echo "pyenv: creating $venv with pyarrow==$PYARROW_VERSION" >&2
  [[ -x $py ]] || python3 -m venv "$venv" >&2
  "$py" -m pip install -q --disable-pip-version-check "pyarrow==$PYARROW_VERSION" >&2
  have_pyarrow || { echo "pyenv: pyarrow $PYARROW_VERSION does not import in $venv" >&2; exit 1; }
fi
echo "$py"
