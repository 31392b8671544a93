// Package object names Kubernetes objects: one spelling of a reference
// (Kind/namespace/name) used in errors, logs, plans and the UI.
package object
