package main

import "testing"

// TestRXStampsFollowStreamsUnlessGiven: --rx-stamps is on with --sse and
// --stream, off otherwise, and what is given wins.
func TestRXStampsFollowStreamsUnlessGiven(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--sse"}, true},
		{[]string{"--stream"}, true},
		{[]string{"--rx-stamps"}, true},
		{[]string{"--rx-stamps=true"}, true},
		{[]string{"--sse", "--rx-stamps=false"}, false},
		{[]string{"--rx-stamps=false"}, false},
	} {
		f := &loadFlags{}
		if err := loadCommand(f).ParseFlags(tc.args); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		cfg, err := f.config("http://127.0.0.1:1/")
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if cfg.RXStamps != tc.want {
			t.Errorf("%q: RXStamps %v, want %v", tc.args, cfg.RXStamps, tc.want)
		}
	}
	f := &loadFlags{}
	if err := loadCommand(f).ParseFlags([]string{"--rx-stamps=maybe"}); err == nil {
		t.Error("--rx-stamps=maybe was taken")
	}
}
