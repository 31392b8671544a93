// Package refusal is Piceli's one vocabulary for a request refused before
// any change: bad input (a spec, flag value, file or object that cannot be
// used), a stale plan, a held lock. Every public package marks such errors
// so that one check, Is, tells a caller that nothing changed and that the
// input, not the system, must change.
package refusal
