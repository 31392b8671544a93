package app

// dropUnsetTargetPorts removes targetPort: 0 from the ports of a Service
// converted from its Go type. Go writes an unset intstr.IntOrString as 0;
// sent to the API server, that 0 would make the release own a targetPort
// the server fills in with the port's number, and conflict with any other
// manager of the Service. Other manifests are left as they are.
func dropUnsetTargetPorts(m map[string]any) {
	if m["kind"] != "Service" || m["apiVersion"] != "v1" {
		return
	}
	spec, _ := m["spec"].(map[string]any)
	ports, _ := spec["ports"].([]any)
	for _, p := range ports {
		if port, ok := p.(map[string]any); ok && isZero(port["targetPort"]) {
			delete(port, "targetPort")
		}
	}
}
