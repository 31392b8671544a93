// Command gateway is one of the three Go services of the services example: a
// small HTTP server that answers on $PORT (8080 by default) and signs the
// session cookie it hands out with $SESSION_KEY, a secret the release
// generates.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
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
	key := os.Getenv("SESSION_KEY")
	if key == "" {
		log.Fatal("gateway: SESSION_KEY is not set; it signs the session cookie")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /", func(w http.ResponseWriter, _ *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: sign(key, "guest"), HttpOnly: true})
		fmt.Fprintln(w, "gateway service")
	})
	log.Printf("gateway listening on :%s", port)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}

// sign returns who with its HMAC-SHA256 under key: "who.hexmac".
func sign(key, who string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(who))
	return who + "." + hex.EncodeToString(mac.Sum(nil))
}
