// Command web is the hello example's web component: a small HTTP server
// that answers every GET with a greeting, on $PORT (8080 by default), as
// the non-root user its image runs as.
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
	http.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "hello from piceli")
	})
	log.Printf("web listening on :%s", port)
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
