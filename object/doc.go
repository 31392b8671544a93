// Package object names Kubernetes objects the one way Piceli prints and
// stores them: a Ref (Kind/namespace/name) in plans, events, errors,
// status and archives, and the Declared form a composition writes, which
// carries where each object was declared. It imports nothing of Piceli.
package object
