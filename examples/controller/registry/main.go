// Command registry is a small OCI registry, kept in memory, for the
// controller guide on the sandbox (docs/controller-guide.md): the
// controller's pods on the real node pull published releases from it by
// its pod's address. It serves plain HTTP on :5000, which
// `piceli registry install` expects of a registry:2-compatible image. Not
// for production: everything is lost when the pod restarts.
package main

import (
	"errors"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	logger := log.New(os.Stdout, "registry: ", log.LstdFlags)
	srv := &http.Server{Addr: ":5000", Handler: registry.New(registry.Logger(logger)), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		<-stop
		srv.Close()
	}()
	logger.Printf("serving on %s", srv.Addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Fatal(err)
	}
}
