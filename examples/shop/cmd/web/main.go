// Command web is the shop's front end: an HTTP server on $PORT (8080 by
// default) that serves the store front from $SITE_DIR (the web-config
// ConfigMap, mounted at /srv/shop), or a page of its own when that
// folder holds no index.html, and answers /healthz.
//
// It stands in for the nginx of a real shop. It does not call the API:
// the sandbox's real node has no cluster DNS and no kube-proxy, so one
// tier cannot reach another through its Service there.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
)

func main() {
	port := env("PORT", "8080")
	site := env("SITE_DIR", "/srv/shop")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		index := filepath.Join(site, "index.html")
		if _, err := os.Stat(index); err == nil {
			http.ServeFile(w, r, index)
			return
		}
		fmt.Fprintln(w, "the shop's store front")
	})
	log.Printf("web listening on :%s, site from %s", port, site)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}

// env returns $name, or def when it is empty.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
