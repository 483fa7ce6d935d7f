package result

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/4", Shard{0, 4}, ""},
		{"3/4", Shard{3, 4}, ""},
		{" 1 / 2 ", Shard{1, 2}, ""},
		{"0/1", Shard{0, 1}, ""},
		{"4/4", Shard{}, "from 0 to 3"},
		{"-1/4", Shard{}, "from 0 to 3"},
		{"1/0", Shard{}, "at least 1"},
		{"2", Shard{}, "I/N"},
		{"a/b", Shard{}, "I/N"},
		{"", Shard{}, "I/N"},
		{"1/2/3", Shard{}, "I/N"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseShard(%q) error = %v, want one mentioning %q", tt.in, err, tt.err)
		}
	}
	if s := (Shard{2, 5}).String(); s != "2/5" {
		t.Errorf("String = %q, want 2/5", s)
	}
	if s := (Shard{}).String(); s != "" {
		t.Errorf("the whole run's String = %q, want empty", s)
	}
}
