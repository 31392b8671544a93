// Package kustomize renders a local kustomization in process with
// kustomize's Go API, over an in-memory copy of one directory, so that
// nothing outside that directory and nothing remote can be read.
package kustomize
