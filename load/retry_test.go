package load_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// A server that closes a keep-alive connection as the next request
// arrives (a graceful shutdown's race, here on every connection's second
// request): gust load sends an idempotent request again on a new
// connection and counts it retried, never failed; a POST is not sent
// again and counts as the error it is; and a fresh connection that closes
// unanswered is an error too, so a request never goes round forever.
func TestRetryWhenAReusedConnectionClosesUnanswered(t *testing.T) {
	closeSecondOf := func(response string, end func(net.Conn)) func(net.Conn) {
		return eachRequest(func(c net.Conn, n int) bool {
			if n == 2 {
				end(c)
				return false
			}
			_, err := io.WriteString(c, response)
			return err == nil
		})
	}
	closeSecond := func(end func(net.Conn)) func(net.Conn) { return closeSecondOf(okResponse, end) }
	const headResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" // no body: the length is GET's
	closeFirst := eachRequest(func(c net.Conn, n int) bool { hangUp(c); return false })
	// An interim answer is bytes of the answer: the request is not sent
	// again after one.
	interimThenClose := eachRequest(func(c net.Conn, n int) bool {
		if n == 2 {
			io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n")
			hangUp(c)
			return false
		}
		_, err := io.WriteString(c, okResponse)
		return err == nil
	})
	for _, tc := range []struct {
		name        string
		serve       func(net.Conn)
		method      string
		wantRetries bool
		wantErrors  bool
	}{
		{"GET, closed with a FIN", closeSecond(hangUp), "GET", true, false},
		{"GET, closed with an RST", closeSecond(rst), "GET", true, false},
		{"HEAD, closed with a FIN", closeSecondOf(headResponse, hangUp), "HEAD", true, false},
		{"POST is not retried", closeSecond(hangUp), "POST", false, true},
		{"a fresh connection is not retried", closeFirst, "GET", false, true},
		{"not after an interim answer", interimThenClose, "GET", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := startFault(t, nil, tc.serve)
			const n = 200
			cfg := load.Config{URL: f.url(), Method: tc.method, Connections: 4, Loops: 2, Requests: n, Timeout: 5 * time.Second}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := load.Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Interrupted {
				t.Fatal("the run did not end by itself")
			}
			errs := res.ErrorCount()
			if tc.wantErrors != (errs > 0) {
				t.Errorf("errors %v, want some: %v", res.Errors, tc.wantErrors)
			}
			if tc.wantRetries != (res.Retried > 0) {
				t.Errorf("retried %d, want some: %v", res.Retried, tc.wantRetries)
			}
			if !tc.wantErrors && res.Requests != n {
				t.Errorf("%d responses, want all %d", res.Requests, n)
			}
			if tc.wantErrors && res.Errors[result.ErrClosed]+res.Errors[result.ErrReset] == 0 {
				t.Errorf("errors %v, want closed or reset", res.Errors)
			}
			if got := res.Requests + errs; tc.wantErrors && got != n {
				t.Errorf("%d responses + %d errors, want %d requests accounted for", res.Requests, errs, n)
			}
		})
	}
}
