// Command pause is the infrastructure container of the sandbox's real node:
// it holds a pod's namespaces, reaps the zombies handed to it as the pod's
// init process, and exits 0 on SIGINT or SIGTERM. The sandbox packs it, built
// static, into the image containerd uses as its sandbox_image, because no
// registry can be reached to pull registry.k8s.io/pause.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every exited child without blocking.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
