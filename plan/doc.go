// Package plan is the plan document ("piceli.plan/v1"): what applying a
// release to one target would do, step by step, in waves, with the hash
// an operator approves. Package release makes, stores and applies plans;
// this package only describes them, prints them for people (Plan.Write,
// and Plan.WriteMarkdown for a pull-request review comment)
// and counts them (Plan.Summary). It imports nothing of Piceli but package
// object.
package plan
