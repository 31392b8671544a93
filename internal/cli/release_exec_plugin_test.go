package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// execKubeconfig writes a copy of the sandbox's kubeconfig whose user gets
// its client certificate from an exec credential plugin: a script that
// prints an ExecCredential holding the sandbox's certificate and key and
// leaves a mark file each time it runs. It returns the kubeconfig's path
// and the mark file's.
func execKubeconfig(t *testing.T, sb *sandboxtest.Sandbox) (string, string) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := clientcmd.LoadFromFile(sb.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	user := cfg.AuthInfos[cfg.Contexts[sb.Context].AuthInfo]
	cred, _ := json.Marshal(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1",
		"kind":       "ExecCredential",
		"status":     map[string]string{"clientCertificateData": string(user.ClientCertificateData), "clientKeyData": string(user.ClientKeyData)},
	})
	mark := filepath.Join(dir, "plugin-ran")
	writeFiles(t, dir, map[string]string{"credential.json": string(cred)})
	script := filepath.Join(dir, "credential-plugin")
	body := "#!/bin/sh\ntouch '" + mark + "'\ncat '" + filepath.Join(dir, "credential.json") + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg.AuthInfos[cfg.Contexts[sb.Context].AuthInfo] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: script, InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}
	path := filepath.Join(dir, "exec.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path, mark
}

// The read-only release commands reach the cluster when the state is
// shared, so they take --allow-exec as the writing ones do: on a second
// machine whose kubeconfig gets its credential from an exec plugin, run,
// history and stop pull the first machine's state through the plugin; and
// without --allow-exec they refuse (exit 2) before the plugin runs, saying
// which flag lets it.
func TestReadOnlyReleaseCommandsRunAnExecPluginWhenAllowed(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	a := newRelease(t, sb, sharedState, smallManifests())
	a.apply(t, a.plan(t))
	run0, _ := a.latestRun(t)

	kubeconfig, mark := execKubeconfig(t, sb)
	b := newReleaseIn(t, sb, a.ns, sharedState, smallManifests())
	data, err := os.ReadFile(b.spec)
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(sb.Kubeconfig)
	withExec, _ := json.Marshal(kubeconfig)
	writeFiles(t, filepath.Dir(b.spec), map[string]string{"release.toml": strings.Replace(string(data), string(quoted), string(withExec), 1)})

	for _, args := range [][]string{{"release", "run"}, {"release", "history"}, {"release", "stop"}} {
		res := run(t, append(args, "--spec", b.spec, "-o", "json")...)
		if res.code != ExitRefused || !strings.Contains(res.stderr, "pass --allow-exec") {
			t.Errorf("%s without --allow-exec: exit %d, want %d and a hint naming --allow-exec\n%s", strings.Join(args, " "), res.code, ExitRefused, res.stderr)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the credential plugin ran although --allow-exec was not given")
	}

	res := run(t, "release", "run", "--spec", b.spec, "--allow-exec", "-o", "json")
	var st struct {
		Run struct{ ID string } `json:"run"`
	}
	if res.code != ExitOK || json.Unmarshal([]byte(res.stdout), &st) != nil || st.Run.ID != run0 {
		t.Errorf("release run --allow-exec: exit %d, run %q, want 0 and the first machine's run %s\n%s%s", res.code, st.Run.ID, run0, res.stdout, res.stderr)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("release run --allow-exec did not run the credential plugin: %v", err)
	}
	if res := run(t, "release", "history", "--spec", b.spec, "--allow-exec", "-o", "json"); res.code != ExitOK || !strings.Contains(res.stdout, `"apply"`) {
		t.Errorf("release history --allow-exec: exit %d, want 0 and the first machine's apply\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := run(t, "release", "stop", "--spec", b.spec, "--allow-exec"); res.code != ExitRefused || !strings.Contains(res.stderr, "not running") {
		t.Errorf("release stop --allow-exec of a finished run: exit %d, want %d saying it is not running\n%s", res.code, ExitRefused, res.stderr)
	}
}
