package status

// Missing is the Status of a declared object the cluster does not have.
const Missing = "missing"

// Object is the status of one declared object.
type Object struct {
	Ref       string `json:"ref"` // Kind/namespace/name
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Status is its readiness by the kstatus rules (current,
	// in-progress, failed, unknown), observedGeneration honoured, or
	// Missing when the cluster does not have the object.
	Status   string    `json:"status"`
	Ready    bool      `json:"ready"`             // Status is current
	Message  string    `json:"message,omitempty"` // readiness's explanation
	Replicas *Replicas `json:"replicas,omitempty"`
	// Reasons explain a workload that is not ready: one line per pod
	// problem (image pull, crash loop, unschedulable) or pending claim.
	Reasons []string `json:"reasons,omitempty"`
}

// Replicas counts a workload's pods.
type Replicas struct {
	Ready   int64 `json:"ready"`
	Desired int64 `json:"desired"`
}

// Service is a Service of the release and its ports.
type Service struct {
	Name      string        `json:"name"`
	Namespace string        `json:"namespace"`
	Type      string        `json:"type"`
	Ports     []ServicePort `json:"ports"`
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string `json:"name,omitempty"`
	Port       int32  `json:"port"`
	TargetPort string `json:"targetPort"`
	Protocol   string `json:"protocol"`
}

// Ingress is an Ingress of the release and the hosts it routes.
type Ingress struct {
	Name      string   `json:"name"`
	Namespace string   `json:"namespace"`
	Class     string   `json:"class,omitempty"`
	Hosts     []string `json:"hosts"`
}
