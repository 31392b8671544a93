// Command cache is the services example's stateful store, a stand-in for
// Redis built like the three services: it listens on $PORT (6379 by
// default) and answers the inline commands PING, SET key value and GET key,
// one per line, from memory (RESP's simple replies: +PONG, +OK, $-1 for a
// missing key). It is enough for the services' readiness and a tcp check,
// not a Redis.
package main

import (
	"bufio"
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"sync"
)

// store is the cache's memory, shared by every connection.
type store struct {
	mu   sync.Mutex
	data map[string]string
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "6379"
	}
	ln, err := net.Listen("tcp", ":"+port)
	if err != nil {
		log.Fatalf("cache: %v", err)
	}
	log.Printf("cache listening on %s", ln.Addr())
	s := &store{data: map[string]string{}}
	for {
		conn, err := ln.Accept()
		if err != nil {
			log.Fatalf("cache: %v", err)
		}
		go s.serve(conn)
	}
}

// serve answers one connection's commands until it closes.
func (s *store) serve(conn net.Conn) {
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		fmt.Fprint(conn, s.do(strings.Fields(sc.Text())))
	}
}

// do runs one command and returns its reply.
func (s *store) do(args []string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(args) == 1 && strings.EqualFold(args[0], "PING"):
		return "+PONG\r\n"
	case len(args) == 3 && strings.EqualFold(args[0], "SET"):
		s.data[args[1]] = args[2]
		return "+OK\r\n"
	case len(args) == 2 && strings.EqualFold(args[0], "GET"):
		v, ok := s.data[args[1]]
		if !ok {
			return "$-1\r\n"
		}
		return fmt.Sprintf("$%d\r\n%s\r\n", len(v), v)
	}
	return "-ERR unknown command\r\n"
}
