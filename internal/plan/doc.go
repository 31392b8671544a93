// Package plan computes and stores target-bound plans: what applying a
// composition would change in one cluster, step by step, identified by the
// SHA-256 of a canonical encoding that an operator approves.
package plan
