package main

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// registryServe serves an OCI registry, kept in memory, on addr: the
// source a controller on the real node pulls published releases from, by
// the pod's address, while a test pushes through a port-forward.
func registryServe(args []string) {
	if len(args) != 1 {
		fail("usage: nodeapp registry ADDR")
	}
	srv := &http.Server{Addr: args[0], Handler: registry.New(registry.Logger(log.New(os.Stdout, "registry: ", log.LstdFlags))), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		<-stop
		srv.Close()
	}()
	fmt.Printf("registry on %s\n", args[0])
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fail(err.Error())
	}
}
