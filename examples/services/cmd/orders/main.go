// Command orders is one of the three Go services of the services example: a
// small HTTP server that answers on $PORT (8080 by default).
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "orders service") })
	log.Printf("orders listening on :%s", port)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
