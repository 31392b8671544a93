// Package sandboxtest gives cluster tests the running Piceli sandbox: its
// kubeconfig, context and clients, a fresh namespace per test, kwok
// port-forward and logs objects, pod annotations that make kwok simulate an
// image that cannot be pulled or a crash loop, and a loopback HTTP target. Without a
// sandbox a test skips with the reason, and fails when CI=true.
//
// A cluster test:
//
//	func TestApplyCreatesDeployment(t *testing.T) {
//		sb := sandboxtest.Cluster(t)    // skips (or fails under CI=true) without a sandbox
//		ns := sb.Namespace(t)           // fresh, deleted when the test ends
//		// use sb.Kubeconfig + sb.Context (what a release spec names),
//		// or sb.RESTConfig / sb.Clientset / sb.Dynamic directly.
//	}
//
// Run such tests with scripts/with-sandbox.sh go test ./..., which starts the
// sandbox and exports PICELI_SANDBOX_KUBECONFIG and PICELI_SANDBOX_CONTEXT,
// or after `piceli sandbox up` (the default sandbox is then found from the
// working directory).
package sandboxtest
