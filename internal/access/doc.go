// Package access forwards Service ports of a release to 127.0.0.1 through
// the API server's port-forward (websocket, falling back to SPDY, as
// kubectl does), each to a ready pod of its Service, reconnecting to
// another ready pod when that one goes away. It binds loopback only. It
// is the module's one port-forward: Start serves `piceli access`, checks
// and the operations lens; Forward holds one port for the length of a
// call (`artifacts import --via-forward`).
package access
