//go:build linux

package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestUnreadUploadsGetTheWholeResponseAndAGracefulClose sends a body the
// handler never reads and checks RFC 9112 section 9.6's staged close from
// the client's side: the whole body can be sent without a reset or broken
// pipe, the response is whole and says Connection: close, and then the
// connection ends with an orderly EOF. With Expect: 100-continue no 100 is
// sent for such a request.
func TestUnreadUploadsGetTheWholeResponseAndAGracefulClose(t *testing.T) {
	body := strings.Repeat("x", 2_000_000)
	cases := []struct {
		name   string
		h      Handler
		cfg    Config
		status int
		// unread: the body is left unread, so the connection must close;
		// Inline reads a body within MaxBodyBytes before the handler runs,
		// and then keeps the connection; Auto and Pooled stream it.
		unread bool
	}{
		{"native auto", HandlerFunc(ignoreBody), Config{Mode: Auto}, 200, true},
		{"native pooled", HandlerFunc(ignoreBody), Config{Mode: Pooled}, 200, true},
		{"native inline", HandlerFunc(ignoreBody), Config{Mode: Inline}, 200, false},
		{"native over MaxBodyBytes", HandlerFunc(ignoreBody), Config{MaxBodyBytes: 64 << 10}, 413, true},
		{"adapter auto", HTTPHandler(http.HandlerFunc(ignoreBodyHTTP)), Config{Mode: Auto}, 200, true},
		{"adapter pooled", HTTPHandler(http.HandlerFunc(ignoreBodyHTTP)), Config{Mode: Pooled}, 200, true},
	}
	for _, tc := range cases {
		s := start(t, tc.h, tc.cfg)
		for _, expect := range []bool{false, true} {
			name := tc.name
			if expect {
				name += " with Expect: 100-continue"
				if !tc.unread {
					continue // the native API asks for the body it reads
				}
			}
			t.Run(name, func(t *testing.T) {
				c, err := net.Dial("tcp", s.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(20 * time.Second))
				head := "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n"
				if expect {
					head += "Expect: 100-continue\r\n"
				}
				sent := make(chan error, 1)
				go func() {
					_, err := io.WriteString(c, head+"\r\n"+body)
					sent <- err
				}()
				r := bufio.NewReader(c)
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("reading the response: %v", err)
				}
				got, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("reading the response body: %v", err)
				}
				if resp.StatusCode != tc.status || resp.Close != tc.unread {
					t.Fatalf("got %d (close %v), want %d (close %v)", resp.StatusCode, resp.Close, tc.status, tc.unread)
				}
				if tc.status == 200 && string(got) != "Hello, Go!" {
					t.Fatalf("body %q", got)
				}
				if err := <-sent; err != nil {
					t.Fatalf("sending the body: %v (the server reset the connection instead of draining it)", err)
				}
				if !tc.unread {
					return
				}
				if n, err := r.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
					t.Fatalf("after the response: read %d, %v; want an orderly EOF", n, err)
				}
			})
		}
	}
}
