package egress

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"testing"
)

// BenchmarkConnect is one CONNECT through the proxy to a loopback listener
// and a one-line exchange: the cost the proxy adds to each of the API
// server's connections (a port-forward or exec session, a log stream).
func BenchmarkConnect(b *testing.B) {
	for _, stats := range []bool{false, true} {
		b.Run(fmt.Sprintf("stats file %t", stats), func(b *testing.B) {
			benchConnect(b, stats)
		})
	}
}

func benchConnect(b *testing.B, stats bool) {
	_, sock, _ := startProxy(b, stats)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			s, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer s.Close(); bufio.NewReader(s).ReadString('\n'); s.Write([]byte("pong\n")) }()
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		c, err := net.Dial("unix", sock)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", ln.Addr())
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil || res.StatusCode != 200 {
			b.Fatal(res, err)
		}
		fmt.Fprint(c, "ping\n")
		if _, err := br.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
