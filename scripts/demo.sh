#!/usr/bin/env bash
# demo.sh [PICELI]
#
# The newcomer's tour. Start the sandbox with its real node (building the
# control plane once), then `piceli deploy` the hello example: build its
# image, import it into the node's containerd through the granted ctr,
# plan, and (approved) apply it with its checks. Render it, ask whether it
# is up, and fetch the running container's answer through `piceli access`.
# Then stop the sandbox, unless KEEP=1; a failed demo leaves it running for
# a look, and says how to stop it.
#
# The real node needs root and Debian's containerd, runc,
# containernetworking-plugins and iproute2; as root the demo installs what
# is missing with apt-get. Without root it runs on kwok's nodes only, where
# containers do not run: checks are skipped and there is no answer to show,
# and the multi-tier shop example is applied instead.
#
# PICELI is the piceli binary (default: bin/piceli).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
piceli="${1:-$root/bin/piceli}"
cd "$root"
step() { printf '\n==> %s\n' "$*"; }
trap 'echo "demo: failed above; the sandbox is left running for a look: stop it with $piceli sandbox down" >&2' ERR
spec=examples/hello/release.toml
kubeconfig="$root/.piceli-sandbox/sandbox.kubeconfig"

real=1
if [ "$(id -u)" -ne 0 ]; then
	real=0
	step "not root: the sandbox runs without its real node (kwok's pods run nothing); sudo make demo shows the container answering"
else
	missing=()
	for pkg in containerd runc containernetworking-plugins iproute2; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		step "install what the real node runs: ${missing[*]} (Debian packages)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
	fi
fi

if [ "$real" = 1 ] && "$piceli" sandbox status 2>/dev/null | grep -q 'running: true' &&
	! "$piceli" sandbox status 2>/dev/null | grep -q '^  real node '; then
	step "the running sandbox has no real node, which starts only with the sandbox: stop it first"
	"$piceli" sandbox down
fi

if [ "$real" = 1 ]; then
	step "start the sandbox on 127.0.0.1 with a real node: containerd, runc and a kubelet (the first run builds the control plane, once: 10 to 15 minutes on 2 idle cores, much longer on a busy machine; see the README)"
	up_out="$("$piceli" sandbox up --real-node)"
else
	step "start the sandbox on 127.0.0.1 (the first run builds the control plane, once: 10 to 15 minutes on 2 idle cores, much longer on a busy machine; see the README)"
	up_out="$("$piceli" sandbox up)"
fi
echo "$up_out"

deliver=()
until=()
if [ "$real" = 1 ]; then
	socket="$(sed -n 's/^real node: .*(containerd \(.*\))$/\1/p' <<<"$up_out")"
	socket="${socket#unix://}"
	deliver=(--deliver containerd --containerd-address "$socket" --grant ctr="$(command -v ctr)")
else
	# kwok's pods run nothing: no image to deliver, no container to check.
	until=(--until apply)
fi

step "deploy: check the image's pinned inputs, build it (no Docker, no network), deliver it, plan; then stop for your approval"
if [ "$real" = 1 ]; then
	echo "(the image goes into the real node's containerd, only through the ctr you grant)"
fi
status=0
deploy_out="$("$piceli" deploy --spec "$spec" "${deliver[@]}")" || status=$?
echo "$deploy_out"
if [ "$status" -ne 3 ]; then
	echo "demo: piceli deploy exited $status, want 3 (approval required)" >&2
	exit 1
fi
hash="$(sed -n 's/^continue with: .*--approve //p' <<<"$deploy_out")"

step "render examples/hello (no cluster involved): the manifests, the web image by the digest just built"
"$piceli" render --spec "$spec"

if [ "$real" = 1 ]; then
	step "approve it: the same deploy applies exactly that plan (journaled waves, readiness between them) and runs its check, an HTTP GET of the home page; build and delivery are skipped, their inputs unchanged"
else
	step "approve it: the same deploy applies exactly that plan (journaled waves, readiness between them); checks skipped with --until apply: nothing answers on kwok's nodes"
fi
"$piceli" deploy --spec "$spec" "${deliver[@]}" "${until[@]}" --approve "$hash"

step "what the deploy built, delivered and applied, stage by stage"
"$piceli" deploy history --spec "$spec"

step "the release's history and latest run"
"$piceli" release history --spec "$spec"
"$piceli" release run --spec "$spec"

step "is the app up, and how to reach it"
"$piceli" status --spec "$spec"

step "the app as the API server sees it"
bindir="$("$piceli" sandbox build --tools-dir "$root/tools/sandbox")"
"$bindir/kubectl" --kubeconfig "$kubeconfig" --context kwok-piceli \
	--namespace hello get deployments,services,pods -o wide

step "a second plan finds nothing to change"
"$piceli" release diff --spec "$spec" --exit-code && echo "no drift"

if [ "$real" = 1 ]; then
	step "reach it: piceli access forwards web's port to 127.0.0.1, and a request gets the container's answer"
	log="$(mktemp -t piceli-demo-access.XXXXXX)"
	"$piceli" access --spec "$spec" >"$log" 2>&1 &
	access=$!
	trap 'kill -INT "$access" 2>/dev/null || true; rm -f "$log"' EXIT
	port=""
	for _ in $(seq 1 300); do
		port="$(sed -n 's|^web  *http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$log" | head -n1)"
		[ -n "$port" ] && break
		kill -0 "$access" 2>/dev/null || break
		sleep 0.2
	done
	cat "$log"
	shown="$(wc -l <"$log")"
	if [ -z "$port" ]; then
		echo "demo: piceli access printed no forward for web" >&2
		exit 1
	fi
	echo "GET http://127.0.0.1:$port/"
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf 'GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	answer="$(cat <&3)"
	exec 3>&-
	printf '%s\n' "$answer" | tr -d '\r'
	kill -INT "$access"
	wait "$access" || true
	trap - EXIT
	tail -n +"$((shown + 1))" "$log"
	rm -f "$log"
	if ! grep -q "hello from piceli" <<<"$answer"; then
		echo "demo: the answer through piceli access is not the web server's greeting" >&2
		exit 1
	fi
else
	shop=examples/shop/release.toml
	step "a multi-tier app: the shop (web, api, worker, a database with a claim, HPA, PDB, Ingress, network policies)"
	"$piceli" artifacts build --spec examples/shop/build.toml
	plan_out="$("$piceli" release plan --spec "$shop" --env prod)"
	echo "$plan_out"
	# Like hello's, the shop's checks need containers that answer; kwok's pods run none.
	"$piceli" release apply --spec "$shop" --env prod --approve "$(sed -n 's/^apply it with: .*--approve //p' <<<"$plan_out")" --skip-checks
	"$bindir/kubectl" --kubeconfig "$kubeconfig" --context kwok-piceli \
		--namespace shop get statefulsets,persistentvolumeclaims,deployments,services
	"$piceli" release diff --spec "$shop" --env prod --exit-code && echo "no drift"
fi

if [ "${KEEP:-0}" = 1 ]; then
	cat <<MSG

Done. The sandbox is still running (KEEP=1). Try changing examples/hello/infra.go
(for example app.Replicas(3)) and run
  $piceli release plan --spec $spec
to see exactly that field change; reach the app with
  $piceli access --spec $spec
Stop the sandbox with: $piceli sandbox down
MSG
else
	step "stop the sandbox (KEEP=1 make demo leaves it running to explore)"
	"$piceli" sandbox down
	cat <<MSG

Done. Run it again with KEEP=1 make demo to keep the sandbox, then change
examples/hello/infra.go (for example app.Replicas(3)) and run
  $piceli release plan --spec $spec
to see exactly that field change.
MSG
fi
