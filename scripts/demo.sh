#!/usr/bin/env bash
# demo.sh [PICELI]
#
# The newcomer's tour: start the sandbox (building its control plane once),
# render the hello example, and reach the cluster through its API server.
# PICELI is the piceli binary (default: bin/piceli). The sandbox is left
# running; stop it with `piceli sandbox down`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
piceli="${1:-$root/bin/piceli}"
cd "$root"
step() { printf '\n==> %s\n' "$*"; }

step "start the sandbox on 127.0.0.1 (the first run builds the control plane: about 8 minutes on 2 cores)"
"$piceli" sandbox up

step "render examples/hello (no cluster involved)"
"$piceli" render --spec examples/hello/release.toml

step "reach the cluster: list its nodes through the API server"
bindir="$("$piceli" sandbox build --tools-dir "$root/tools/sandbox")"
"$bindir/kubectl" --kubeconfig "$root/.piceli-sandbox/sandbox.kubeconfig" --context kwok-piceli get nodes -o wide

step "sandbox status"
"$piceli" sandbox status

cat <<MSG

The demo stops here for now: plan and apply are being built (see the open issues),
and this script grows with the engine. Stop the sandbox with: $piceli sandbox down
MSG
