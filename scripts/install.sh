#!/usr/bin/env bash
# Builds self-contained binaries of syncd, syncctl and sync-server (the Swift runtime and
# Foundation linked in statically, symbols stripped: they run on a Debian machine without a
# Swift toolchain; they need only libc, libstdc++, libsqlite3 and libinotifytools from
# Debian) and installs them under PREFIX with the systemd units, shell completions
# (bash, zsh, fish) and man pages.
#
#   scripts/install.sh [PREFIX]          default PREFIX: /usr/local
#   INSTALL_CONFIGURATION=debug scripts/install.sh /tmp/x   (a quicker, unoptimized build)
#
# Layout: PREFIX/bin/{syncd,syncctl,sync-server}, PREFIX/lib/systemd/{user/syncd.service,
# system/sync-server.service} (ExecStart points at PREFIX/bin),
# PREFIX/share/bash-completion/completions/, PREFIX/share/zsh/site-functions/,
# PREFIX/share/fish/vendor_completions.d/, PREFIX/share/man/man1/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
prefix="${1:-/usr/local}"
configuration="${INSTALL_CONFIGURATION:-release}"
scratch=".build-install-$configuration"
scripts/install-deps.sh

echo "building ($configuration, the Swift runtime and Foundation linked in) in $scratch"
swift build -c "$configuration" --static-swift-stdlib --scratch-path "$scratch"
bin="$(swift build -c "$configuration" --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)"
for tool in syncd syncctl sync-server; do
  # SwiftPM keeps a build plan per scratch directory and configuration: one made without
  # --static-swift-stdlib would link dynamically here too. Refuse rather than install that.
  if ldd "$bin/$tool" | grep -q 'libswiftCore'; then
    echo "error: $bin/$tool is linked to the Swift runtime: remove $scratch and run again" >&2
    exit 1
  fi
done
# ArgumentParser's manual generator (the tool behind its generate-manual plugin), built on
# its own so that it does not touch the build plan above.
tools=".build-install-tools"
swift build --scratch-path "$tools" --product generate-manual >/dev/null
manuals="$(mktemp -d)"
trap 'rm -rf "$manuals"' EXIT

install -d "$prefix/bin" "$prefix/lib/systemd/user" "$prefix/lib/systemd/system" \
  "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
  "$prefix/share/fish/vendor_completions.d" "$prefix/share/man/man1"
for tool in syncd syncctl sync-server; do
  install -m 0755 "$bin/$tool" "$prefix/bin/$tool"
  strip --strip-unneeded "$prefix/bin/$tool"
  "$prefix/bin/$tool" --generate-completion-script bash > "$prefix/share/bash-completion/completions/$tool"
  "$prefix/bin/$tool" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_$tool"
  "$prefix/bin/$tool" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/$tool.fish"
  "$tools/debug/generate-manual" "$prefix/bin/$tool" --output-directory "$manuals" >/dev/null
  if ! grep -q '^\.Dt' "$manuals/$tool.1"; then
    echo "error: the man page generated for $tool is not one: $(ls -l "$manuals/$tool.1" 2>&1)" >&2
    head -c 400 "$manuals/$tool.1" >&2 || true
    exit 1
  fi
  install -m 0644 "$manuals/$tool.1" "$prefix/share/man/man1/$tool.1"
done
sed "s|/usr/local/bin/|$prefix/bin/|g" Config/systemd/syncd.service > "$prefix/lib/systemd/user/syncd.service"
sed "s|/usr/local/bin/|$prefix/bin/|g" Config/systemd/sync-server.service > "$prefix/lib/systemd/system/sync-server.service"

echo "installed in $prefix:"
for tool in syncd syncctl sync-server; do
  printf '  %-12s %s, %s\n' "$tool" "$("$prefix/bin/$tool" --version)" "$(du -h "$prefix/bin/$tool" | cut -f1)"
done
