// Package acceptance is Piceli's fault-injected acceptance suite: it breaks
// the API server's answers (through internal/faultproxy), kills the engine
// at every failpoint, tears and corrupts journals, races runs, goes stale
// and feeds bad input, against the sandbox, and checks the same things
// after every scenario. Its code is all in tests; see docs/acceptance.md
// for what it runs and the latest results, and `make test-acceptance`.
package acceptance
