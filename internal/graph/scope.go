package graph

// clusterScoped lists built-in kinds that live outside any namespace,
// keyed "group/Kind".
var clusterScoped = map[string]bool{
	"/Namespace":        true,
	"/Node":             true,
	"/PersistentVolume": true,
	"apiextensions.k8s.io/CustomResourceDefinition":                 true,
	"rbac.authorization.k8s.io/ClusterRole":                         true,
	"rbac.authorization.k8s.io/ClusterRoleBinding":                  true,
	"storage.k8s.io/StorageClass":                                   true,
	"storage.k8s.io/CSIDriver":                                      true,
	"storage.k8s.io/VolumeAttachment":                               true,
	"scheduling.k8s.io/PriorityClass":                               true,
	"networking.k8s.io/IngressClass":                                true,
	"node.k8s.io/RuntimeClass":                                      true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"apiregistration.k8s.io/APIService":                             true,
	"certificates.k8s.io/CertificateSigningRequest":                 true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       true,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       true,
}

// KnownClusterScoped reports whether a built-in kind is cluster-scoped.
// It knows nothing of custom resources: without a cluster, their scope
// comes from a CustomResourceDefinition in the same composition, and
// discovery checks it at plan time.
func KnownClusterScoped(group, kind string) bool {
	return clusterScoped[group+"/"+kind]
}
