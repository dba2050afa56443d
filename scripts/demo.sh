#!/usr/bin/env bash
# The main job: builds, then starts a sync-server and a syncd syncing
# ./demo/Sync with embedded defaults (SQLite metadata, chunks on local disk).
# Re-running restarts both. Stop with scripts/demo.sh stop.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
demo="${DEMO_DIR:-$PWD/demo}"
port="${DEMO_PORT:-8417}"

stop() {
  for name in syncd sync-server; do
    if [ -f "$demo/$name.pid" ]; then
      kill "$(cat "$demo/$name.pid")" 2>/dev/null || true
      rm -f "$demo/$name.pid"
    fi
  done
}
if [ "${1:-}" = "stop" ]; then stop; echo "demo stopped"; exit 0; fi

scripts/install-deps.sh
swift build -c "${BUILD:-debug}"
bin="$(swift build -c "${BUILD:-debug}" --show-bin-path)"
stop
mkdir -p "$demo/Sync" "$demo/state"
chmod 700 "$demo/state"

cat > "$demo/sync-server.toml" <<TOML
[server]
listen = "127.0.0.1:$port"
data_dir = "$demo/server"
[storage]
metadata = "sqlite"
blobs = "filesystem"
retention = "30d"
TOML

if [ ! -s "$demo/credential" ]; then
  "$bin/sync-server" folder add demo --config "$demo/sync-server.toml"
  (umask 077; "$bin/sync-server" device add --name "$(hostname)" --folder demo --config "$demo/sync-server.toml" > "$demo/credential")
fi
chmod 600 "$demo/credential"

cat > "$demo/syncd.toml" <<TOML
[daemon]
state_dir = "$demo/state"
control_socket = "$demo/state/syncd.sock"
log_level = "info"
[server]
url = "http://127.0.0.1:$port"
credential_file = "$demo/credential"
[[folder]]
id = "demo"
path = "$demo/Sync"
TOML

nohup "$bin/sync-server" serve --config "$demo/sync-server.toml" >"$demo/sync-server.out" 2>"$demo/sync-server.log" &
echo $! > "$demo/sync-server.pid"
for _ in $(seq 100); do
  grep -q "listening on" "$demo/sync-server.out" 2>/dev/null && break
  sleep 0.1
done
nohup "$bin/syncd" --config "$demo/syncd.toml" >/dev/null 2>"$demo/syncd.log" &
echo $! > "$demo/syncd.pid"
for _ in $(seq 100); do
  "$bin/syncctl" --config "$demo/syncd.toml" status >/dev/null 2>&1 && break
  sleep 0.1
done

cat <<MSG

sync-server (127.0.0.1:$port) and syncd are running; logs in $demo/*.log.
Drop files into $demo/Sync, then try:

  $bin/syncctl --config $demo/syncd.toml status
  $bin/syncctl --config $demo/syncd.toml status --json

Stop both with: scripts/demo.sh stop
MSG
