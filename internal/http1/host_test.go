package http1

import (
	"net/netip"
	"testing"
)

func TestValidAuthority(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		needPort bool
		want     bool
	}{
		{"a DNS name is valid", "example.com", false, true},
		{"a DNS name with a port is valid", "example.com:8080", false, true},
		{"an empty port is valid when none is needed", "example.com:", false, true},
		{"an empty port is invalid when one is needed", "example.com:", true, false},
		{"a missing port is invalid when one is needed", "example.com", true, false},
		{"an IPv4 address with a port is valid", "192.0.2.1:80", false, true},
		{"an IPv6 literal is valid", "[2001:db8::1]", false, true},
		{"an IPv6 literal with a port is valid", "[::1]:443", true, true},
		{"an empty string is invalid", "", false, false},
		{"a port alone is invalid", ":80", false, false},
		{"a non-numeric port is invalid", "example.com:http", false, false},
		{"a second colon is invalid", "example.com:80:80", false, false},
		{"userinfo is invalid", "u@example.com", false, false},
		{"percent-encoding is invalid", "%65xample.com", false, false},
		{"a space is invalid", "exa mple.com", false, false},
		{"an unclosed IPv6 literal is invalid", "[::1", false, false},
		{"junk after an IPv6 literal is invalid", "[::1]80", false, false},
		{"an empty IPv6 literal is invalid", "[]", false, false},
		{"IPvFuture is invalid", "[v1.fe80::a]", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := validAuthority([]byte(c.in), c.needPort); got != c.want {
				t.Errorf("validAuthority(%q, %v) = %v, want %v", c.in, c.needPort, got, c.want)
			}
		})
	}
}

// ipv6Cases are IPv6 literals and whether they are valid.
var ipv6Cases = []struct {
	in   string
	want bool
}{
	{"::", true},
	{"::1", true},
	{"1::", true},
	{"2001:db8::1", true},
	{"2001:0db8:0000:0000:0000:ff00:0042:8329", true},
	{"2001:DB8::A", true},
	{"1:2:3:4:5:6:7::", true},
	{"::2:3:4:5:6:7:8", true},
	{"::ffff:192.0.2.1", true},
	{"::192.0.2.1", true},
	{"1:2:3:4:5:6:192.0.2.1", true},
	{"", false},
	{":", false},
	{":::", false},
	{":1", false},
	{"1:", false},
	{"1::2::3", false},
	{"1:2:3:4:5:6:7", false},
	{"1:2:3:4:5:6:7:8:9", false},
	{"1:2:3:4:5:6:7::8", false},
	{"12345::", false},
	{"g::", false},
	{"::ffff:192.0.2", false},
	{"::ffff:192.0.2.256", false},
	{"::ffff:192.0.2.01", false},
	{"::192.0.2.1:1", false},
	{"1:2:3:4:5:6:7:192.0.2.1", false},
	{"192.0.2.1", false},
	{"fe80::1%eth0", false},
}

func TestValidIPv6(t *testing.T) {
	for _, c := range ipv6Cases {
		name := c.in + " is invalid"
		if c.want {
			name = c.in + " is valid"
		}
		t.Run(name, func(t *testing.T) {
			if got := validIPv6([]byte(c.in)); got != c.want {
				t.Errorf("validIPv6(%q) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

// FuzzValidIPv6 checks validIPv6 against net/netip, which net/url uses for
// IP literals in URLs: the two must agree, except that netip also accepts
// zones (refused here) and plain IPv4 addresses (not IPv6 literals).
func FuzzValidIPv6(f *testing.F) {
	for _, c := range ipv6Cases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, err := netip.ParseAddr(s)
		want := err == nil && addr.Is6() && addr.Zone() == ""
		if got := validIPv6([]byte(s)); got != want {
			t.Fatalf("validIPv6(%q) = %v, netip says %v (%v)", s, got, want, err)
		}
	})
}
