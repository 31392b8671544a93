// Command nodeapp is the program tests run in containers on the sandbox's
// real node, packed alone into an image (see sandboxtest.NodeAppImage):
//
//	nodeapp serve ADDR   serve HTTP on ADDR: /healthz answers ok, any other
//	                     path "$NODEAPP_TOKEN from HOSTNAME pid PID"; each
//	                     request is logged to stdout
//	nodeapp exit CODE    print a line and exit with CODE
//	nodeapp cat FILE...  print files (for exec)
//	nodeapp apicheck     call the API server as an in-cluster client, from
//	                     KUBERNETES_SERVICE_HOST/PORT and the ServiceAccount's
//	                     ca.crt and token, and print what it learnt (see
//	                     apicheck); exit 1 when a call fails
//
// It must be built with CGO_ENABLED=0: the image holds nothing else.
package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: nodeapp serve ADDR | exit CODE | cat FILE... | apicheck")
	}
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "serve":
		serve(args)
	case "exit":
		exit(args)
	case "cat":
		cat(args)
	case "apicheck":
		apicheck()
	default:
		fail("nodeapp: unknown command " + strconv.Quote(cmd))
	}
}

func serve(args []string) {
	if len(args) != 1 {
		fail("usage: nodeapp serve ADDR")
	}
	host, _ := os.Hostname()
	answer := fmt.Sprintf("%s from %s pid %d", os.Getenv("NODEAPP_TOKEN"), host, os.Getpid())
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Printf("%s %s\n", r.Method, r.URL.Path)
		io.WriteString(w, answer)
	})
	srv := &http.Server{Addr: args[0], Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		<-stop
		srv.Close()
	}()
	fmt.Printf("serving on %s\n", args[0])
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fail(err.Error())
	}
}

func exit(args []string) {
	if len(args) != 1 {
		fail("usage: nodeapp exit CODE")
	}
	code, err := strconv.Atoi(args[0])
	if err != nil {
		fail("nodeapp exit: " + err.Error())
	}
	fmt.Printf("exiting with code %d\n", code)
	os.Exit(code)
}

func cat(files []string) {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fail(err.Error())
		}
		os.Stdout.Write(b)
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}
