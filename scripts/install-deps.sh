#!/usr/bin/env bash
# Installs what building and testing syncd needs on Debian 12. Idempotent and
# quick when everything is already there.
set -euo pipefail

# bsdutils: util-linux `script`, the pseudo-terminal LiveStatusTests run `status --watch` in.
# postgresql: the server the PostgreSQL metadata tests start as a throwaway cluster
# (initdb + pg_ctl in a temp dir, on a free port of 127.0.0.1; TestSupport's PostgresServer).
# gdb: scripts/run-bounded.sh prints a hung test process's threads with it (the toolchain's
# lldb needs a libpython Debian 12 does not have).
packages=(libinotifytools0-dev libsqlite3-dev pkg-config openssl bsdutils binutils file postgresql gdb)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "note: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "error: a Swift 6 toolchain is required (swift not on PATH); install it from swift.org" >&2
    exit 1
  fi
fi

# An S3-speaking server for the object-storage tests (moto's standalone server, from PyPI).
if ! python3 -c "import moto.server, flask" >/dev/null 2>&1; then
  echo "installing: moto[server] (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check 'moto[server]>=5,<6' \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages 'moto[server]>=5,<6'
fi
