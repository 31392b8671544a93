// Command web is the mixed example's typed front end: an HTTP server on
// $PORT (8080 by default) that answers every GET with a greeting.
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
		fmt.Fprintln(w, "web, declared with Piceli's typed builders")
	})
	log.Printf("web listening on :%s", port)
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
