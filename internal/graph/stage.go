package graph

import pub "github.com/pynenc/piceli/plan"

// Stage lives in the public package plan, whose waves name it.
type Stage = pub.Stage

// The stages in apply order (plan.Order).
const (
	StageNamespaces = pub.StageNamespaces
	StageIdentity   = pub.StageIdentity
	StageConfig     = pub.StageConfig
	StageStorage    = pub.StageStorage
	StageServices   = pub.StageServices
	StageWorkloads  = pub.StageWorkloads
	StageCustom     = pub.StageCustom
	StagePolicies   = pub.StagePolicies
	StagePrune      = pub.StagePrune
)

// Order lists every stage in apply order.
var Order = pub.Order

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
