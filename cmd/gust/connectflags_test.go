package main

import (
	"strings"
	"testing"
)

func TestParseAddrRanges(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{in: "127.0.0.1", want: "127.0.0.1"},
		{in: "127.0.0.1-127.0.0.3", want: "127.0.0.1 127.0.0.2 127.0.0.3"},
		{in: "127.0.0.9, 127.0.0.2-127.0.0.2", want: "127.0.0.9 127.0.0.2"},
		{in: "127.0.0.255-127.0.1.1", want: "127.0.0.255 127.0.1.0 127.0.1.1"},
		{in: "::1-::2", want: "::1 ::2"},
		{in: "localhost", err: `"localhost" is not an IP address`},
		{in: "127.0.0.3-127.0.0.1", err: "must go up"},
		{in: "127.0.0.1-::1", err: "must go up, within one address family"},
		{in: "127.0.0.1-127.0.255.255", err: "more than 4096 addresses"},
		{in: "127.0.0.1,", err: `"" is not an IP address`},
	} {
		got, err := parseAddrRanges(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one with %q", tt.in, err, tt.err)
			}
			continue
		}
		var s []string
		for _, a := range got {
			s = append(s, a.String())
		}
		if err != nil || strings.Join(s, " ") != tt.want {
			t.Errorf("%q: got %v, %v; want %s", tt.in, s, err, tt.want)
		}
	}
}
