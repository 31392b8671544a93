// Package status holds what "piceli status" reports of a release's objects:
// each object's readiness (Object), a workload's replicas, the Services'
// ports and the Ingresses' hosts. Package release computes them from one
// LIST per kind and namespace; this package only describes them. It
// imports nothing of Piceli.
package status
