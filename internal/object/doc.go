// Package object holds what every stage knows of a Kubernetes object: one
// spelling of its reference (Kind/namespace/name) for errors, logs, plans
// and the UI, the Declared form that carries its origin, the release label,
// and which objects are Secrets or workloads with a pod template.
package object
