#!/usr/bin/env bash
# Installs prerequisites, builds everything, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
