package sandbox_test

import "net/netip"

func isLoopbackAddr(s string) bool {
	ap, err := netip.ParseAddrPort(s)
	return err == nil && ap.Addr().IsLoopback()
}
