// Command echo answers every HTTP request with a fixed text, taking the
// flags of hashicorp/http-echo that the mixed example's k8s.io/api
// Deployment passes (-listen=:5678 -text=hello), and adds $MESSAGE (from
// the greeting ConfigMap) on a second line when it is set.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	listen := flag.String("listen", ":5678", "address to listen on")
	text := flag.String("text", "", "text to answer with")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, *text)
		if msg := os.Getenv("MESSAGE"); msg != "" {
			fmt.Fprintln(w, msg)
		}
	})
	log.Printf("echo listening on %s", *listen)
	log.Fatal(http.ListenAndServe(*listen, nil))
}
