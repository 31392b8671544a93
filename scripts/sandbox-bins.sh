#!/usr/bin/env bash
# sandbox-bins.sh [piceli sandbox build flags...]
#
# Build the pinned sandbox binaries (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubectl, kwok, kwokctl,
# kwok-stages, and the real node's kubelet and pause) from the modules in
# tools/sandbox into the version-keyed
# cache, and print the cache directory on stdout. Cached binaries are kept (pass --rebuild to rebuild them).
# PICELI_BIN names a piceli binary to use instead of building bin/piceli.
# About 10 to 15 minutes cold on 2 idle cores, much longer on a busy machine
# (the README has measurements); seconds when the cache is warm.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
piceli="${PICELI_BIN:-}"
if [ -z "$piceli" ]; then
	piceli="$root/bin/piceli"
	go build -o "$piceli" ./cmd/piceli
fi
exec "$piceli" sandbox build --tools-dir "$root/tools/sandbox" "$@"
