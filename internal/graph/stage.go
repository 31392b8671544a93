package graph

// Stage is one apply stage. Stages are persisted and printed by name.
type Stage string

// The stages in apply order. Objects of one stage may be applied in
// parallel; a stage waits for the readiness of the one before it.
const (
	StageNamespaces Stage = "namespaces" // Namespaces and CustomResourceDefinitions
	StageIdentity   Stage = "identity"   // ServiceAccounts and RBAC
	StageConfig     Stage = "config"     // ConfigMaps and Secrets
	StageStorage    Stage = "storage"    // volumes, claims and storage classes
	StageServices   Stage = "services"   // Services
	StageWorkloads  Stage = "workloads"  // Deployments, StatefulSets, Jobs, ...
	StageCustom     Stage = "custom"     // kinds Piceli has no rule for, such as custom resources
	StagePolicies   Stage = "policies"   // autoscalers, budgets, ingress and network policies
	StagePrune      Stage = "prune"      // deletes of objects a release no longer declares
)

// Order lists every stage in apply order.
var Order = []Stage{StageNamespaces, StageIdentity, StageConfig, StageStorage, StageServices, StageWorkloads, StageCustom, StagePolicies, StagePrune}

// stageOfKind maps "group/Kind" (core group: "/Kind") to its stage.
var stageOfKind = map[string]Stage{
	"/Namespace": StageNamespaces,
	"apiextensions.k8s.io/CustomResourceDefinition": StageNamespaces,
	"/ServiceAccount":                              StageIdentity,
	"rbac.authorization.k8s.io/Role":               StageIdentity,
	"rbac.authorization.k8s.io/ClusterRole":        StageIdentity,
	"rbac.authorization.k8s.io/RoleBinding":        StageIdentity,
	"rbac.authorization.k8s.io/ClusterRoleBinding": StageIdentity,
	"scheduling.k8s.io/PriorityClass":              StageIdentity,
	"/ConfigMap":                                   StageConfig,
	"/Secret":                                      StageConfig,
	"/LimitRange":                                  StageConfig,
	"/ResourceQuota":                               StageConfig,
	"storage.k8s.io/StorageClass":                  StageStorage,
	"/PersistentVolume":                            StageStorage,
	"/PersistentVolumeClaim":                       StageStorage,
	"/Service":                                     StageServices,
	"apps/Deployment":                              StageWorkloads,
	"apps/StatefulSet":                             StageWorkloads,
	"apps/DaemonSet":                               StageWorkloads,
	"apps/ReplicaSet":                              StageWorkloads,
	"/Pod":                                         StageWorkloads,
	"/ReplicationController":                       StageWorkloads,
	"batch/Job":                                    StageWorkloads,
	"batch/CronJob":                                StageWorkloads,
	"autoscaling/HorizontalPodAutoscaler":          StagePolicies,
	"policy/PodDisruptionBudget":                   StagePolicies,
	"networking.k8s.io/Ingress":                    StagePolicies,
	"networking.k8s.io/IngressClass":               StagePolicies,
	"networking.k8s.io/NetworkPolicy":              StagePolicies,
}

// StageOf returns the stage of a kind in an API group ("" for core).
// Kinds without a rule, custom resources among them, go to StageCustom.
func StageOf(group, kind string) Stage {
	if s, ok := stageOfKind[group+"/"+kind]; ok {
		return s
	}
	return StageCustom
}

// Rank is the position of a stage in Order, for sorting.
func (s Stage) Rank() int {
	for i, o := range Order {
		if o == s {
			return i
		}
	}
	return len(Order)
}
