package lab

import (
	"slices"
	"strings"
	"testing"
)

func TestChooseCPUs(t *testing.T) {
	allowed := CPUSet{0, 1, 2, 3}
	for _, tc := range []struct {
		name, server, client string
		wantS, wantC         CPUSet
		wantErr              string
	}{
		{"halves by default", "", "", CPUSet{0, 1}, CPUSet{2, 3}, ""},
		{"the flags win", "3", "0-2", CPUSet{3}, CPUSet{0, 1, 2}, ""},
		{"a bad list names its flag", "x", "", nil, nil, "--server-cpus"},
		{"a bad client list names its flag", "", "1-0", nil, nil, "--client-cpus"},
		{"a CPU not allowed", "7", "", nil, nil, "CPU 7 is not among the allowed CPUs 0,1,2,3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, err := ChooseCPUs(allowed, tc.server, tc.client)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(s, tc.wantS) || !slices.Equal(c, tc.wantC) {
				t.Errorf("got %v %v %v, want %v %v", s, c, err, tc.wantS, tc.wantC)
			}
		})
	}
}
