package replay

import (
	"strings"
	"testing"
)

// editsLog is a JSON lines log with headers that are dropped, kept and
// overridden, bodies on methods that carry one and on one that does not.
const editsLog = `{"method":"GET","url":"/api/users/1?x=1","headers":{"Host":"prod.example.com","Connection":"keep-alive","Accept":"*/*","X-Keep":"yes","Content-Length":"3"},"body":"abc"}
{"method":"POST","url":"/api/users","headers":{"Content-Type":"application/json","Transfer-Encoding":"chunked","Authorization":"Bearer old"},"body":"{\"n\":1}"}
{"method":"PUT","path":"/api/users/2","body_base64":"AAE="}
{"method":"DELETE","path":"/api/users/3","body":"ignored"}
{"method":"GET","path":"/health"}
{"method":"HEAD","path":"/api/users/4"}
`

func TestStagedRequestsAreEdited(t *testing.T) {
	path := writeFile(t, "a.jsonl", []byte(editsLog))
	t.Run("edits", func(t *testing.T) {
		src := open(t, path, Options{Host: "test:80", Header: [][2]string{{"authorization", "Bearer new"}, {"X-Replay", "1"}}})
		got := drain(t, src)
		want := []string{
			"GET /api/users/1?x=1 HTTP/1.1\r\nHost: test:80\r\nUser-Agent: gust\r\nAccept: */*\r\nX-Keep: yes\r\nauthorization: Bearer new\r\nX-Replay: 1\r\n\r\n",
			"POST /api/users HTTP/1.1\r\nHost: test:80\r\nUser-Agent: gust\r\nContent-Type: application/json\r\nauthorization: Bearer new\r\nX-Replay: 1\r\nContent-Length: 7\r\n\r\n{\"n\":1}",
			"PUT /api/users/2 HTTP/1.1\r\nHost: test:80\r\nUser-Agent: gust\r\nauthorization: Bearer new\r\nX-Replay: 1\r\nContent-Length: 2\r\n\r\n\x00\x01",
			"DELETE /api/users/3 HTTP/1.1\r\nHost: test:80\r\nUser-Agent: gust\r\nauthorization: Bearer new\r\nX-Replay: 1\r\n\r\n",
			"GET /health HTTP/1.1\r\nHost: test:80\r\nUser-Agent: gust\r\nauthorization: Bearer new\r\nX-Replay: 1\r\n\r\n",
			"HEAD /api/users/4 HTTP/1.1\r\nHost: test:80\r\nUser-Agent: gust\r\nauthorization: Bearer new\r\nX-Replay: 1\r\n\r\n",
		}
		if len(got) != len(want) {
			t.Fatalf("%d requests, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].request != want[i] {
				t.Errorf("request %d:\n got %q\nwant %q", i, got[i].request, want[i])
			}
		}
		if !got[5].head || got[0].head {
			t.Error("only the HEAD request should be marked Head")
		}
		eps := []string{"GET /api/users/:id", "POST /api/users", "PUT /api/users/:id", "DELETE /api/users/:id", "GET /health", "HEAD /api/users/:id"}
		for i, ep := range eps {
			if got[i].endpoint != ep {
				t.Errorf("request %d endpoint %q, want %q", i, got[i].endpoint, ep)
			}
		}
	})
	t.Run("bad header input", func(t *testing.T) {
		_, err := Open(path, Options{Host: "x", Header: [][2]string{{"Bad Name", "v"}}})
		if err == nil || !strings.Contains(err.Error(), "bad header") {
			t.Errorf("err = %v, want a bad header error", err)
		}
		src := open(t, writeFile(t, "h.jsonl", []byte(`{"path":"/","headers":{"X":"a\u0001b"}}`+"\n"+`{"path":"/ok"}`+"\n")), Options{})
		if got := drain(t, src); len(got) != 1 || src.Stats().Skipped != 1 {
			t.Errorf("%d requests, stats %+v: want the line with a control character skipped", len(got), src.Stats())
		}
	})
}
