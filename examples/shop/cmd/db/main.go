// Command db stands in for the shop's PostgreSQL: it keeps its data in
// $PGDATA (the StatefulSet's claim), counting its starts in a file there,
// and listens on $PORT (5432 by default), greeting each connection with
// one line. It needs $POSTGRES_PASSWORD (from the Secret the release
// generates) and never prints it. It speaks no SQL: it shows that the
// claim is bound, mounted and writable, and that the pod answers on the
// database port, with an image built offline.
package main

import (
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if os.Getenv("POSTGRES_PASSWORD") == "" {
		log.Fatal("db: POSTGRES_PASSWORD is not set; the release gives it from the db-credentials Secret")
	}
	data := env("PGDATA", "/var/lib/postgresql/data")
	starts, err := countStart(data)
	if err != nil {
		log.Fatalf("db: %v", err)
	}
	ln, err := net.Listen("tcp", ":"+env("PORT", "5432"))
	if err != nil {
		log.Fatalf("db: %v", err)
	}
	log.Printf("db stand-in listening on %s, data in %s (start %d)", ln.Addr(), data, starts)
	for {
		conn, err := ln.Accept()
		if err != nil {
			log.Fatalf("db: %v", err)
		}
		fmt.Fprintf(conn, "shop db stand-in, start %d\n", starts)
		conn.Close()
	}
}

// countStart adds one to the start count kept in dir and returns it.
func countStart(dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(dir, "starts")
	n := 0
	if b, err := os.ReadFile(path); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	n++
	if err := os.WriteFile(path, []byte(strconv.Itoa(n)+"\n"), 0o600); err != nil {
		return 0, fmt.Errorf("data directory: %w", err)
	}
	return n, nil
}

// env returns $name, or def when it is empty.
func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
