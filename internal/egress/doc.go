// Package egress is a small HTTP CONNECT proxy that lets its clients reach
// only the addresses a policy allows. The sandbox runs one on a unix socket
// for kube-apiserver's egress selector, so the API server's own outbound
// connections (admission webhooks, aggregated APIs, kubelet connections for
// logs, exec and port-forward, URL webhooks) stay on the machine.
//
// The proxy resolves no names: a destination is an IP address (or
// "localhost", taken as 127.0.0.1) and a port. Every refused destination is
// answered 403 with a reason naming it, logged in one line and counted; the
// counts can be written to a JSON file (Stats) after each connection.
package egress
