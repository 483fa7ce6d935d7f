package http1_test

import (
	"fmt"

	"github.com/gust-http/gust/internal/http1"
)

func ExampleParseResponseHead() {
	// A response as it might arrive from a socket: head and body together,
	// read in two parts.
	wire := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nHello, Go!")

	var h http1.ResponseHead
	_, err := http1.ParseResponseHead(wire[:20], 4096, &h)
	fmt.Println(err == http1.ErrIncomplete) // read more and try again

	n, err := http1.ParseResponseHead(wire, 4096, &h)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.StatusCode, h.Body(false), h.ContentLength, h.Close)
	fmt.Printf("%s\n", wire[n:n+int(h.ContentLength)])
	// Output:
	// true
	// 200 BodyLength 10 false
	// Hello, Go!
}

func ExampleChunkedDecoder() {
	body := []byte("5\r\nHello\r\n5;ext=1\r\n, Go!\r\n0\r\nX-Trailer: t\r\n\r\n")

	var d http1.ChunkedDecoder
	var out []byte
	p, done := body, false
	for len(p) > 0 && !done {
		n, data, dn, err := d.Decode(p)
		if err != nil {
			fmt.Println(err)
			return
		}
		out = append(out, data...)
		p, done = p[n:], dn
	}
	fmt.Printf("%s %v\n", out, done)
	// Output: Hello, Go! true
}

func ExampleAppendRequest() {
	req := &http1.Request{Target: "/hello", Host: "localhost:8080", UserAgent: "gust"}
	buf := http1.AppendRequest(nil, req)
	fmt.Printf("%q\n", buf)
	// Output: "GET /hello HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: gust\r\n\r\n"
}
