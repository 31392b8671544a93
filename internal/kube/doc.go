// Package kube is Piceli's only door to a cluster: a client built from one
// named kubeconfig file and context, the target's identity, and validated
// discovery of every declared object's resource and scope.
package kube
