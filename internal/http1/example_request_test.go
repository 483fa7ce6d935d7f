package http1_test

import (
	"fmt"
	"github.com/gust-http/gust/internal/head"

	"github.com/gust-http/gust/internal/http1"
)

func ExampleParseRequestHead() {
	// A request as it might arrive on a server connection: head and body
	// together, read in two parts.
	wire := []byte("POST /upload?id=7 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello")

	// One head.Request per connection: its Headers array is reused.
	h := head.Request{Headers: make([]head.Field, 0, 16)}
	_, err := http1.ParseRequestHead(wire[:30], http1.Limits{}, &h)
	fmt.Println(err == http1.ErrIncomplete) // read more and try again

	n, err := http1.ParseRequestHead(wire, http1.Limits{}, &h)
	if err != nil {
		// Answer with this status, then close the connection.
		fmt.Println(http1.StatusForError(err))
		return
	}
	fmt.Printf("%s %s ? %s, Host %s\n", h.Method, h.Path, h.Query, h.Host)
	fmt.Println(http1.RequestBodyKind(&h), h.ContentLength, h.Expect100, h.KeepAlive())
	fmt.Printf("%s\n", wire[n:n+int(h.ContentLength)])

	_, err = http1.ParseRequestHead([]byte("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"), http1.Limits{}, &h)
	fmt.Println(err, http1.StatusForError(err))
	// Output:
	// true
	// POST /upload ? id=7, Host example.com
	// BodyLength 5 true true
	// hello
	// http1: invalid Transfer-Encoding 400
}
