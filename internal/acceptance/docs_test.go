package acceptance

// docIntro opens docs/acceptance.md; the table of the latest full run
// follows it. It is written by `make test-acceptance UPDATE=1`, never by
// hand.
const docIntro = `# Acceptance: faults and bad input

This page is written by ` + "`make test-acceptance UPDATE=1`" + ` (internal/acceptance); do
not edit it by hand. It holds the table of the latest full run.

## What runs where

- ` + "`make test-acceptance`" + ` runs every scenario against a sandbox on 127.0.0.1
  (scripts/with-sandbox.sh starts one when none runs) and prints the table;
  with ` + "`UPDATE=1`" + ` it rewrites this page. It sets ` + "`PICELI_ACCEPTANCE=full`" + `.
- ` + "`make test`" + ` (` + "`go test ./...`" + `, what CI runs) registers the fast half only:
  the scenarios marked (fast) below, about a minute and a half on 2 cores. The
  other half is not skipped there; it is not registered. CI requires
  TestAcceptance to pass (.ci/run).
- TestScenariosCoverEveryFailpointAndFaultKind runs in both, without a
  cluster: it reads the failpoints the engine's code hits (the hit calls in
  internal/apply), requires each in apply.Failpoints or
  apply.CompensationFailpoints, and requires a scenario for every failpoint
  and every fault kind faultproxy.Kinds() reports. A scenario that claims a
  fault kind fails unless the proxy really injected it.
- The security table (below the fault table) comes first on a full run:
  every test named TestSecurity… performs one attack of the trust model
  ([security.md](security.md)) in the package it protects, and the suite
  runs them there, one ` + "`go test`" + ` per package. TestEveryAttackIsTabled
  (no cluster, in both) requires a row for each such test and a test for
  each row. ` + "`make test`" + ` runs each of them in its own package, and CI
  requires every one to pass.
- Kill scenarios pick their passes from a seed (` + "`PICELI_ACCEPTANCE_SEED`" + `,
  default 1): three distinct passes per failpoint (fewer when a run passes it
  fewer times); the first is in the fast half. Names say the seed and pass.

## How faults are made

- API server answers: internal/faultproxy, a loopback proxy between Piceli
  and the sandbox's API server (every release's kubeconfig points at its own
  proxy). Rules for writes leave dry runs alone. Piceli opens no watches: it
  polls readiness with GETs and diagnoses with pod LISTs, so the long-poll
  faults are applied to those: ` + "`cut-watch`" + ` ends a readiness GET before
  its answer, ` + "`cut-answer`" + ` sends half an answer's body and drops the
  connection.
- The API server unavailable: the proxy resets (or answers 503 to) every
  request for a window; and for real, a second sandbox started by the suite
  whose kube-apiserver is killed with SIGKILL and started again with the same
  command line.
- Process kills: a binary built with ` + "`-tags piceli_failpoints`" + ` kills itself
  with SIGKILL at the named failpoint and pass (` + "`PICELI_TEST_FAILPOINT`" + `).
- Journal write error: a real one, apply run under ` + "`prlimit --fsize`" + ` so an
  append fails with EFBIG after a short write. Journal fsync error: the
  failpoints build's ` + "`PICELI_TEST_JOURNAL_FAULT=fsync:N`" + ` fails the N-th fsync
  with EIO and reports any later sync of that journal.
- Torn and corrupt journals: copies of a killed run's release directory,
  the journal cut at each byte of its last record or with one bit flipped in
  an earlier record, each resumed against the same cluster.

## After every scenario

The same checks run when each scenario ends, pass or fail:
- every subprocess it started has ended; its proxy is closed and nothing of
  the test process listens on its address;
- the cluster is in the scenario's terminal state: the plan's desired state
  (a fresh diff has only no-op steps, the latest run finished), compensated
  (a fresh plan would create every object again, the latest run
  compensated), or for a refused scenario unchanged: the namespace's objects
  (UIDs and resourceVersions, Leases included) and every state-directory
  file as before, and no write reached the proxy;
- every run's journal reads clean: no corruption, no torn tail, no step in
  doubt;
- no object was written twice: no real write of one method to one object
  landed more than once, by the proxy's log: received by the API server and
  answered with success (a request the server never received, or one its
  client abandoned mid-way and resume settled as not applied, is not a
  second write); the scenarios about lost answers count every write the
  server received, and want exactly one;
- no canary leaked: each release's Secret holds a unique value, searched for
  raw, base64 (at three alignments), hex, URL- and JSON-escaped in every
  command's stdout and stderr, every file of the release directory and its
  copies (the manifests aside) and the subprocesses' TMPDIR.

## Documented terminal states

- A failed fsync of the run's last append (run-finished) leaves a journal
  that reads finished although the apply exited 1: the record was written,
  not made durable. A resume has nothing to do.
- A run whose writes found the API server gone ends failed with those steps
  in doubt; resume settles them by reading the cluster.
- ` + "`render`" + ` needs no cluster, so input only the API server can judge (an
  unknown kind or field, a negative replica count, a port out of range)
  renders as given; plan, diff and apply refuse it. A name or namespace not
  valid for its kind is refused by render too (docs/security.md).

`
