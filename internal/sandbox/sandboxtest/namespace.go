package sandboxtest

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestLabel marks namespaces created by Namespace, so leftovers of killed
// test runs can be found.
const TestLabel = "piceli.dev/test"

// Namespace creates a fresh namespace named after the test and deletes it
// (without waiting) when the test ends.
func (s *Sandbox) Namespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: namespacePrefix(t.Name()),
		Labels:       map[string]string{TestLabel: "true"},
	}}
	created, err := s.Clientset.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create test namespace: %v", err)
	}
	name := created.Name
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Clientset.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete test Namespace/%s: %v", name, err)
		}
	})
	return name
}

// namespacePrefix turns a test name into a DNS-label prefix ending in '-'.
func namespacePrefix(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	prefix := strings.Trim(b.String(), "-")
	if len(prefix) > 40 {
		prefix = strings.TrimRight(prefix[:40], "-")
	}
	return "t-" + prefix + "-"
}
