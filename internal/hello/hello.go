package hello

import (
	"net/http"
	"strconv"
	"time"
)

// Text is the body every target answers with when no size is asked for.
const Text = "Hello, Go!"

// Handler returns a net/http handler that answers every request with body
// (Text when nil; an empty, non-nil body is sent empty) as text/plain with
// its Content-Length, after delay if positive. A delayed request whose
// client leaves first (its context is done) is not answered.
func Handler(body []byte, delay time.Duration) http.Handler {
	return TypedHandler(body, "text/plain; charset=utf-8", delay)
}

// TypedHandler is Handler with another Content-Type (application/json
// for a JSON body).
func TypedHandler(body []byte, contentType string, delay time.Duration) http.Handler {
	if body == nil {
		body = []byte(Text)
	}
	contentLength := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				// The client is gone; there is no one left to answer.
				t.Stop()
				return
			}
		}
		h := w.Header()
		h["Content-Type"] = []string{contentType}
		h["Content-Length"] = []string{contentLength}
		_, _ = w.Write(body)
	})
}
