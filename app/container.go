package app

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Image sets the container image, normally ctx.Image("name") so the pinned
// reference comes from release.toml.
func Image(ref string) WorkloadOption {
	return workloadOption(func(w *Workload) { w.image, w.imageSet = ref, true })
}

// Command replaces the image's entrypoint.
func Command(cmd ...string) WorkloadOption {
	return workloadOption(func(w *Workload) { w.command = append([]string(nil), cmd...) })
}

// Args replaces the image's default arguments.
func Args(args ...string) WorkloadOption {
	return workloadOption(func(w *Workload) { w.args = append([]string(nil), args...) })
}

// Ports declares TCP container ports. They become the default ports of a
// Service declared for the workload and the ports Piceli can forward.
func Ports(ports ...int) WorkloadOption {
	return workloadOption(func(w *Workload) {
		for _, p := range ports {
			w.addPort("", p, corev1.ProtocolTCP)
		}
	})
}

// NamedPort declares one named TCP container port; the name (an IANA
// service name such as "http") is reused by Services.
func NamedPort(name string, port int) WorkloadOption {
	return workloadOption(func(w *Workload) { w.addPort(name, port, corev1.ProtocolTCP) })
}

// UDPPort declares one UDP container port.
func UDPPort(port int) WorkloadOption {
	return workloadOption(func(w *Workload) { w.addPort("", port, corev1.ProtocolUDP) })
}

func (w *Workload) addPort(name string, port int, protocol corev1.Protocol) {
	if msg := portError(port); msg != "" {
		w.fail("%s", msg)
		return
	}
	if _, dup := w.port(int32(port)); dup {
		w.fail("port %d declared twice", port)
		return
	}
	if name != "" {
		if msg := explain("IANA service name", validation.IsValidPortName(name)); msg != "" {
			w.fail("port name %q must be an %s", name, msg)
		}
	}
	w.ports = append(w.ports, PortInfo{Name: name, Port: int32(port), Protocol: string(protocol)})
}

// Replicas sets the desired pod count of a Deployment or StatefulSet.
// Without it Kubernetes defaults to 1; with an Autoscaler it is left out.
func Replicas(n int32) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if n < 0 {
			w.fail("replicas %d must not be negative", n)
		}
		w.replicas = &n
	})
}

// BackoffLimit sets how many times a Job (or a CronJob's jobs) retries.
func BackoffLimit(n int32) WorkloadOption {
	return workloadOption(func(w *Workload) { w.backoffLimit = &n })
}

// RunAs runs the workload's pods as the service account.
func RunAs(sa *ServiceAccount) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if sa != nil {
			w.serviceAccount = sa.name
		}
	})
}

// Requests sets the container's CPU and memory requests, as quantities
// ("250m", "128Mi"); an empty string leaves that resource unset.
func Requests(cpu, memory string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.resources.Requests = w.quantities("requests", cpu, memory)
	})
}

// Limits sets the container's CPU and memory limits, as quantities; an
// empty string leaves that resource unset.
func Limits(cpu, memory string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.resources.Limits = w.quantities("limits", cpu, memory)
	})
}

// quantities parses a CPU and memory pair, recording bad quantities.
func (w *Workload) quantities(field, cpu, memory string) corev1.ResourceList {
	list := corev1.ResourceList{}
	for _, r := range []struct {
		name  corev1.ResourceName
		value string
	}{{name: corev1.ResourceCPU, value: cpu}, {name: corev1.ResourceMemory, value: memory}} {
		if r.value == "" {
			continue
		}
		q, err := resource.ParseQuantity(r.value)
		if err != nil {
			w.fail("%s %s %q: %v", field, r.name, r.value, err)
			continue
		}
		list[r.name] = q
	}
	return list
}

// Env sets a literal environment variable.
func Env(name, value string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.addEnv(corev1.EnvVar{Name: name, Value: value})
	})
}

// EnvFromConfig sets environment variable name from key of a ConfigMap
// declared on the same App.
func EnvFromConfig(name string, cm *ConfigMap, key string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if cm == nil {
			w.fail("env %q: config map is nil", name)
			return
		}
		if !cm.HasKey(key) {
			w.fail("env %q: configmap %q has no key %q", name, cm.name, key)
		}
		w.addEnv(corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: cm.name}, Key: key,
			},
		}})
	})
}

// EnvFromSecret sets environment variable name from key of a Secret
// declared on the same App. The value never passes through the composition.
func EnvFromSecret(name string, s *Secret, key string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if s == nil {
			w.fail("env %q: secret is nil", name)
			return
		}
		if !s.HasKey(key) {
			w.fail("env %q: secret %q has no key %q", name, s.name, key)
		}
		w.addEnv(corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: s.name}, Key: key,
			},
		}})
	})
}

func (w *Workload) addEnv(v corev1.EnvVar) {
	if msg := explain("valid environment variable name", validation.IsEnvVarName(v.Name)); msg != "" {
		w.fail("env %q: name must be a %s", v.Name, msg)
	}
	for _, e := range w.env {
		if e.Name == v.Name {
			w.fail("env %q declared twice", v.Name)
			return
		}
	}
	w.env = append(w.env, v)
}
