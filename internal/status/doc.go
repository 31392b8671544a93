// Package status tells whether a release's objects are up, from what one
// LIST per kind and namespace read: readiness by the kstatus rules,
// replicas, the reasons a workload is not ready (pod diagnosis, pending
// claims), the Services' ports and the Ingresses' hosts. Compute is pure.
package status
