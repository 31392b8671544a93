// Command api is the shop's backend, one binary for three workloads:
//
//	api          an HTTP API on $PORT (8080 by default): /healthz, and /
//	             saying which database it is configured for
//	api worker   a background worker that logs a line every $EVERY (30s)
//	api report   the nightly report: prints one line and exits
//
// Each needs $DATABASE_PASSWORD (from the Secret the release generates)
// and never prints it. None of them connects to the database: the
// sandbox's real node has no cluster DNS, so "db" resolves nowhere there.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"
)

func main() {
	if os.Getenv("DATABASE_PASSWORD") == "" {
		log.Fatal("api: DATABASE_PASSWORD is not set; the release gives it from the db-credentials Secret")
	}
	mode := "serve"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "serve":
		serve()
	case "worker":
		work()
	case "report":
		fmt.Printf("nightly report: database %s, user %s: nothing to report\n", os.Getenv("DATABASE_HOST"), os.Getenv("DATABASE_USER"))
	default:
		log.Fatalf("api: unknown mode %q (want serve, worker or report)", mode)
	}
}

// serve runs the HTTP API.
func serve() {
	port := env("PORT", "8080")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"service": "shop api", "logLevel": os.Getenv("LOG_LEVEL"),
			"database": os.Getenv("DATABASE_USER") + "@" + os.Getenv("DATABASE_HOST"),
		})
	})
	log.Printf("api listening on :%s", port)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}

// work logs a line every $EVERY until the pod is stopped.
func work() {
	every, err := time.ParseDuration(env("EVERY", "30s"))
	if err != nil || every <= 0 {
		log.Fatalf("api worker: EVERY=%q is not a positive duration", os.Getenv("EVERY"))
	}
	for n := 1; ; n++ {
		log.Printf("worker: pass %d, no orders waiting", n)
		time.Sleep(every)
	}
}

// env returns $name, or def when it is empty.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
