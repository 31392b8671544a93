package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/progress"
)

// childSpec, set in a test binary's environment, makes it a deploy
// process for a test to kill: it runs one deploy of that spec (approving
// $PICELI_DEPLOY_APPROVE when set), prints each event as a JSON line on
// stdout and exits 0, 3 (approval) or 1.
const childSpec = "PICELI_DEPLOY_CHILD_SPEC"

func TestMain(m *testing.M) {
	sandboxtest.AgentMain()
	if spec := os.Getenv(childSpec); spec != "" {
		os.Exit(child(spec))
	}
	os.Exit(m.Run())
}

func child(spec string) int {
	enc := json.NewEncoder(os.Stdout)
	_, err := deploy.Run(context.Background(), spec, deploy.Options{Approve: os.Getenv("PICELI_DEPLOY_APPROVE"), Events: func(e progress.Event) { enc.Encode(e) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
