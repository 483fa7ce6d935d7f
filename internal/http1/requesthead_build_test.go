package http1

import (
	"testing"

	"github.com/gust-http/gust/internal/head"
)

// TestBuildHeadWritesWhatAppendRequestWrites checks that the head both
// protocols send, written as HTTP/1.1, is AppendRequest's bytes.
func TestBuildHeadWritesWhatAppendRequestWrites(t *testing.T) {
	tests := []struct {
		name string
		r    Request
	}{
		{"a bare GET gets Host and a default target", Request{Host: "h"}},
		{"a POST announces its empty body", Request{Method: "POST", Host: "h", UserAgent: "gust"}},
		{"a body gets its length and Close its field", Request{Method: "PUT", Target: "/a?b", Host: "h", Body: []byte("xyz"), Close: true}},
		{"header fields override Host, User-Agent and framing", Request{Host: "h", UserAgent: "gust", Body: []byte("x"), Close: true,
			Header: [][2]string{{"user-agent", "me"}, {"HOST", "other"}, {"Transfer-Encoding", "chunked"}, {"Connection", "keep-alive"}, {"host", "third"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h head.Request
			BuildHead(&h, &tt.r, nil)
			got := string(append(AppendHead(nil, &h), tt.r.Body...))
			if want := string(AppendRequest(nil, &tt.r)); got != want {
				t.Errorf("AppendHead(BuildHead) wrote\n%q\nAppendRequest\n%q", got, want)
			}
			var p head.Request
			if _, err := ParseRequestHead([]byte(got), Limits{}, &p); err != nil {
				t.Fatal(err)
			}
			if string(p.Host) != string(h.Host) || p.ContentLength != h.ContentLength || p.Close != h.Close {
				t.Errorf("parsed back: host %q length %d close %v, built: host %q length %d close %v",
					p.Host, p.ContentLength, p.Close, h.Host, h.ContentLength, h.Close)
			}
		})
	}
}
