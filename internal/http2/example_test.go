package http2_test

import (
	"fmt"

	"github.com/gust-http/gust/internal/http2"
)

// ExampleClientConn drives a client engine by hand: an event loop does the
// same with the bytes it reads from and writes to a socket.
func ExampleClientConn() {
	c := http2.NewClientConn(http2.ClientConfig{})
	out := c.Start(nil) // the preface, SETTINGS and WINDOW_UPDATE: write them

	// The server's preface is its SETTINGS; the engine acknowledges it.
	in := http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Value: 10})
	out, _, _ = c.Feed(out[:0], in)
	fmt.Println("can open", c.CanOpen())

	out, id, _ := c.Open(out[:0], &http2.Request{Method: "GET", Scheme: "https", Authority: "example.com", Path: "/"})

	// The server answers 200 with a 5-byte body.
	enc := http2.NewHeaderEncoder()
	enc.Begin()
	enc.Field(":status", "200")
	in = http2.AppendHeaders(nil, id, enc.Block(), false, 0)
	in = http2.AppendData(in, id, []byte("hello"), true)
	_, n, err := c.Feed(out[:0], in)
	fmt.Println("consumed", n == len(in), err)
	for _, e := range c.Events() {
		fmt.Println(e.Kind, e.StreamID, e.Status, e.BodyBytes)
	}
	// Output:
	// can open 10
	// consumed true <nil>
	// headers 1 200 0
	// end 1 200 5
}

// ExampleReader parses frames in place; n == 0 means more bytes are needed.
func ExampleReader() {
	buf := http2.AppendData(nil, 1, []byte("abc"), true)
	var r http2.Reader
	_, n, err := r.Next(buf[:5])
	fmt.Println(n, err)
	f, n, err := r.Next(buf)
	fmt.Println(n, err, f.Header.Type, string(f.Payload()), f.Header.Flags.Has(http2.FlagEndStream))
	// Output:
	// 0 <nil>
	// 12 <nil> DATA abc true
}
