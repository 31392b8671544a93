package sandbox

import (
	"net/netip"
	"testing"
)

func TestParseProcAddr(t *testing.T) {
	tests := []struct {
		name, in string
		want     netip.AddrPort
	}{
		{"IPv4 loopback", "0100007F:1F90", netip.MustParseAddrPort("127.0.0.1:8080")},
		{"IPv4 any", "00000000:0016", netip.MustParseAddrPort("0.0.0.0:22")},
		{"IPv6 loopback", "00000000000000000000000001000000:0050", netip.MustParseAddrPort("[::1]:80")},
		{"IPv6 any", "00000000000000000000000000000000:0050", netip.MustParseAddrPort("[::]:80")},
		{"IPv4-mapped loopback is unmapped", "0000000000000000FFFF00000100007F:0050", netip.MustParseAddrPort("127.0.0.1:80")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcAddr(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("parseProcAddr(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseProcAddrRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "0100007F", "zz00007F:1F90", "0100007F:zz", "01007F:0050"} {
		if got, err := parseProcAddr(in); err == nil {
			t.Errorf("parseProcAddr(%q) = %v, nil; want an error", in, got)
		}
	}
}
