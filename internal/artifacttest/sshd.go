package artifacttest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// SSHD is an sshd of one test, on 127.0.0.1, that lets root in with the
// test's key only.
type SSHD struct {
	Port       int
	Identity   string // the test's private key
	KnownHosts string // a known_hosts file holding the server's host key
	Dir        string
}

// StartSSHD starts Debian's sshd as `sshd -D -e -f CONFIG` on a free
// loopback port with a host key and an authorized key made for this test.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	NeedRoot(t)
	sshd := Need(t, "sshd", "openssh-server")
	keygen := Need(t, "ssh-keygen", "openssh-client")
	dir, err := os.MkdirTemp("", "sshd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	s := &SSHD{Port: FreePort(t), Identity: filepath.Join(dir, "id_ed25519"), KnownHosts: filepath.Join(dir, "known_hosts"), Dir: dir}
	hostKey := filepath.Join(dir, "host_ed25519")
	for _, k := range []string{hostKey, s.Identity} {
		if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	copyFile(t, s.Identity+".pub", filepath.Join(dir, "authorized_keys"))
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.KnownHosts, fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, pub))
	config := filepath.Join(dir, "sshd_config")
	writeFile(t, config, fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
`, s.Port, hostKey, filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid")))
	logFile := filepath.Join(dir, "sshd.log")
	start(t, exec.Command(sshd, "-D", "-e", "-f", config), logFile)
	waitFor(t, 20*time.Second, "sshd", logFile, func(context.Context) bool {
		c, err := net.Dial("tcp", addr(s.Port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return s
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(data))
}
