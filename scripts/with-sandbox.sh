#!/usr/bin/env bash
# with-sandbox.sh CMD [ARGS...]
#
# Start the Piceli sandbox (building the pinned binaries into the cache first
# when they are missing), run CMD with PICELI_SANDBOX_KUBECONFIG and
# PICELI_SANDBOX_CONTEXT exported, then stop the sandbox, even when CMD fails
# or the script is interrupted. A sandbox that was already running before is
# left running. The exit status is CMD's.
#
# Environment:
#   PICELI_SANDBOX_NAME  sandbox name (default: piceli)
#   PICELI_SANDBOX_KEEP  set to 1 to leave the sandbox running afterwards
#   PICELI_CACHE_DIR     binary cache root (default: the user cache directory)
#   PICELI_BIN           a piceli binary to use (default: build bin/piceli)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
name="${PICELI_SANDBOX_NAME:-piceli}"
piceli="${PICELI_BIN:-}"

if [ "$#" -eq 0 ]; then
	echo "usage: scripts/with-sandbox.sh CMD [ARGS...]" >&2
	exit 2
fi

if [ -z "$piceli" ]; then
	piceli="$root/bin/piceli"
	go build -o "$piceli" ./cmd/piceli
fi
start=$(date +%s)
out="$("$piceli" sandbox up --name "$name")"
echo "$out"
echo "with-sandbox: sandbox \"$name\" ready after $(($(date +%s) - start))s" >&2

keep=0
if grep -q "was already running" <<<"$out" || [ "${PICELI_SANDBOX_KEEP:-}" = 1 ]; then
	keep=1
	echo "with-sandbox: leaving sandbox \"$name\" running afterwards" >&2
fi
stop() {
	if [ "$keep" = 0 ]; then
		"$piceli" sandbox down --name "$name" >&2
	fi
}
trap stop EXIT

PICELI_SANDBOX_KUBECONFIG="$(sed -n 's/^kubeconfig: *//p' <<<"$out")"
PICELI_SANDBOX_CONTEXT="$(sed -n 's/^context: *//p' <<<"$out")"
export PICELI_SANDBOX_KUBECONFIG PICELI_SANDBOX_CONTEXT

# Run CMD in the background so a signal reaches this script at once (bash
# defers traps while a foreground child runs); pass it on, then stop.
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM
wait "$child"
