package cli

import (
	"io"
	"os"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// Once the command tree quiets client-go's logs, an error client-go logs
// (as it does for a cancelled request) reaches neither stderr nor stdout.
func TestClientErrorsStayOffStderr(t *testing.T) {
	quietClientLogs()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	klog.Error("client-go-error-marker")
	klog.Flush()
	os.Stderr = saved
	w.Close()
	out, _ := io.ReadAll(r)
	if strings.Contains(string(out), "client-go-error-marker") {
		t.Errorf("a client-go error reached stderr after quietClientLogs:\n%s", out)
	}
}
