#!/usr/bin/env bash
# examples.sh [PICELI]
#
# Apply every example under examples/ the way its README says, on the
# sandbox `make demo` starts (a real node: containers really run), and
# fail unless each run exits 0 with its checks. The examples that build
# images (hello, services, mixed, shop) go through `piceli deploy
# --deliver containerd`: plan, stop for approval (exit 3), then apply the
# approved hash and run the checks. compare/piceli runs the shop's images,
# so it comes after the shop, through `release plan` and `release apply`,
# and so does platform, the consumer of the component module under
# components/ (docs/packages.md). Each example must then diff clean. A
# directory under examples/ that is none of these fails the run, so a new
# example is not left out; components/ holds library modules only (no
# release.toml: `make test` runs their tests, platform applies one).
#
# The real node needs root and Debian's containerd, runc,
# containernetworking-plugins and iproute2, and only one may run on a
# machine: the script holds /tmp/piceli-realnode.lock (and the tests'
# lock) from the sandbox's start to its end. It starts the default sandbox (the examples target
# .piceli-sandbox/sandbox.kubeconfig, context kwok-piceli) and stops it at
# the end, also on failure; a sandbox already running with a real node
# (KEEP=1 make demo) is used and left running.
#
# PICELI is the piceli binary (default: bin/piceli).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
piceli="${1:-$root/bin/piceli}"
cd "$root"
step() { printf '\n==> %s\n' "$*"; }
fail() { echo "examples: $*" >&2; exit 1; }

deployed=(hello services mixed shop)
planned=(compare/piceli platform)
libraries=(components)
# Images a guide builds and runs, not releases: examples/controller is the
# controller guide's registry (docs/controller-guide.md, TestControllerGuide).
guides=(controller)
# Examples whose release.toml declares environments, and the one applied here.
declare -A env_of=([shop]=dev [compare/piceli]=dev)
env_args() { [ -z "${env_of[$1]:-}" ] || echo "--env ${env_of[$1]}"; }
for dir in examples/*/; do
	name="$(basename "$dir")"
	case " ${deployed[*]} compare platform ${libraries[*]} ${guides[*]} " in
	*" $name "*) ;;
	*) fail "examples/$name is not applied by scripts/examples.sh: add it there" ;;
	esac
done
for lib in "${libraries[@]}" "${guides[@]}"; do
	release="$(find "examples/$lib" -name release.toml -print -quit)"
	[ -z "$release" ] || fail "$release: examples/$lib holds no release to apply; apply a release here, not there"
done

[ "$(id -u)" -eq 0 ] || fail "the real node needs root"
ctr_bin="$(command -v ctr)" || fail "ctr not found: install Debian's containerd"

# One real node per machine: the helpers' lock and the tests' lock
# (sandboxtest.LockRealNode), both held until the real node stops (its
# processes inherit them).
for lock in /tmp/piceli-realnode.lock /tmp/piceli-real-node-tests.lock; do
	exec {fd}>"$lock"
	flock -n "$fd" || { echo "examples: waiting for $lock (another real node runs)"; flock "$fd"; }
done

started=0
status_out="$("$piceli" sandbox status 2>/dev/null || true)"
if grep -q 'running: true' <<<"$status_out"; then
	grep -q '^  real node ' <<<"$status_out" || fail "the running sandbox has no real node; stop it first: $piceli sandbox down"
	step "using the running sandbox and its real node"
	socket="$(sed -n 's/^  real node [^:]*: containerd \([^,]*\),.*/\1/p' <<<"$status_out")"
else
	step "start the sandbox with a real node"
	up_out="$("$piceli" sandbox up --real-node)"
	echo "$up_out"
	started=1
	trap '"$piceli" sandbox down >/dev/null 2>&1 || true' EXIT
	socket="$(sed -n 's/^real node: .*(containerd \(.*\))$/\1/p' <<<"$up_out")"
fi
socket="${socket#unix://}"
[ -n "$socket" ] || fail "no containerd socket found for the real node"
deliver=(--deliver containerd --containerd-address "$socket" --grant ctr="$ctr_bin")

# timed NAME CMD...: run CMD, say how long it took, and fail naming NAME
# unless it exits 0.
timed() {
	local name="$1" start=$SECONDS code=0
	shift
	"$@" || code=$?
	echo "examples: $name: exit $code after $((SECONDS - start))s"
	[ "$code" -eq 0 ] || fail "$name: exit $code, want 0"
}

# deploy_example NAME: plan through deploy (exit 3, approval required),
# then apply the hash it printed, with the checks.
deploy_example() {
	local spec="examples/$1/release.toml" out code=0
	# shellcheck disable=SC2046 # env_args prints two words or none
	out="$("$piceli" deploy --spec "$spec" $(env_args "$1") "${deliver[@]}")" || code=$?
	echo "$out"
	[ "$code" -eq 3 ] || fail "$1: deploy without --approve exited $code, want 3 (approval required)"
	local hash
	hash="$(sed -n 's/^continue with: .*--approve //p' <<<"$out")"
	[ -n "$hash" ] || fail "$1: deploy printed no hash to approve"
	# shellcheck disable=SC2046
	"$piceli" deploy --spec "$spec" $(env_args "$1") "${deliver[@]}" --approve "$hash"
}

# plan_example DIR: release plan, then release apply of its hash.
plan_example() {
	local spec="examples/$1/release.toml" out hash
	# shellcheck disable=SC2046 # env_args prints two words or none
	out="$("$piceli" release plan --spec "$spec" $(env_args "$1"))"
	echo "$out"
	hash="$(sed -n 's/^apply it with: .*--approve //p' <<<"$out")"
	[ -n "$hash" ] || fail "$1: release plan printed no hash to approve"
	# shellcheck disable=SC2046
	"$piceli" release apply --spec "$spec" $(env_args "$1") --approve "$hash"
}

for ex in "${deployed[@]}"; do
	step "$ex: deploy (build, deliver into the real node's containerd, plan; then apply the approved plan and run its checks)"
	timed "$ex" deploy_example "$ex"
done
for ex in "${planned[@]}"; do
	step "$ex: release plan, then release apply of the approved hash"
	timed "$ex" plan_example "$ex"
done
for ex in "${deployed[@]}" "${planned[@]}"; do
	step "$ex: a second plan finds nothing to change"
	# shellcheck disable=SC2046
	timed "$ex diff" "$piceli" release diff --spec "examples/$ex/release.toml" $(env_args "$ex") --exit-code
done

if [ "$started" = 1 ]; then
	step "stop the sandbox"
	trap - EXIT
	"$piceli" sandbox down
fi
step "every example applied, its checks passed, and none drifted"
