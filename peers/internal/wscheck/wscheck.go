// Package wscheck is the WebSocket peers' shared test: a real client
// (gorilla/websocket's) checks that a running peer echoes text as text and
// binary as binary in order on /ws, broadcasts to every connection on
// /ws/broadcast, negotiates permessage-deflate only when asked, and
// still answers hello on other paths. Only tests import it.
package wscheck

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gust-http/gust/internal/hello"
	"github.com/gust-http/gust/peers/internal/peer"
)

// Timeout bounds every check.
const Timeout = 5 * time.Second

// FreeAddr returns a free 127.0.0.1 port, for servers that take an
// address rather than a listener (nbio's engine).
func FreeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// StartHTTP serves h as a peer built on net/http does (peer.HTTPServer,
// with the TLS flags f.TLS) on a free port until the test ends, and
// returns its host:port.
func StartHTTP(t *testing.T, f peer.Flags, h http.Handler) string {
	t.Helper()
	srv, err := peer.HTTPServer("test", f, h)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = peer.Serve(srv, ln) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// Target is a running peer to check.
type Target struct {
	Addr    string // host:port
	TLS     bool   // wss:// and https://
	Deflate bool   // the peer runs with -ws-deflate
	// NoEmpty: the library never hands an empty message to the
	// application (nbio v1.6.12), so none is echoed or broadcast.
	NoEmpty bool
}

// Run checks the peer tg with clients that offer permessage-deflate and
// clients that do not.
func Run(t *testing.T, tg Target) {
	s := &server{Target: tg}
	t.Run("other paths answer hello", s.hello)
	for _, offer := range []bool{false, true} {
		name := "a client without compression"
		if offer {
			name = "a client offering permessage-deflate"
		}
		c := client{server: s, offer: offer, want: offer && tg.Deflate}
		t.Run(name+" gets deflate only if the server has it", c.negotiation)
		t.Run(name+" gets text as text and binary as binary, in order", c.echo)
		t.Run(name+" gets a broadcast on both connections, the sender's too", c.broadcast)
	}
}

type server struct{ Target }

func (s *server) url(scheme, path string) string {
	if s.TLS {
		scheme += "s"
	}
	return scheme + "://" + s.Addr + path
}

func (s *server) hello(t *testing.T) {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	for _, path := range []string{"/", peer.WSEchoPath, "/other"} {
		resp, err := (&http.Client{Transport: tr, Timeout: Timeout}).Get(s.url("http", path))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != hello.Text {
			t.Fatalf("GET %s without Upgrade: %d %q, want 200 %q", path, resp.StatusCode, body, hello.Text)
		}
	}
}

// client is one kind of client: offering permessage-deflate or not, and
// whether it must get it.
type client struct {
	*server
	offer, want bool
}

// conn is a client connection whose messages arrive on in, read by a
// goroutine of its own (a timed-out gorilla read spoils the connection).
type conn struct {
	*websocket.Conn
	in       chan message
	deflated bool
}

type message struct {
	typ  int
	data []byte
}

func (c client) dial(t *testing.T, path string) *conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: Timeout, EnableCompression: c.offer,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	ws, resp, err := d.Dial(c.url("ws", path), nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { ws.Close() })
	ws.SetReadLimit(peer.WSMaxMessage)
	cn := &conn{Conn: ws, in: make(chan message, 64),
		deflated: strings.Contains(resp.Header.Get("Sec-WebSocket-Extensions"), "permessage-deflate")}
	go func() {
		defer close(cn.in)
		for {
			typ, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			cn.in <- message{typ, data}
		}
	}()
	return cn
}

// next returns the next message, passing over those that are skip unless
// it is "", failing after Timeout.
func (c *conn) next(t *testing.T, skip string) message {
	t.Helper()
	deadline := time.After(Timeout)
	for {
		select {
		case m, ok := <-c.in:
			if !ok {
				t.Fatal("the server closed the connection")
			}
			if skip == "" || string(m.data) != skip {
				return m
			}
		case <-deadline:
			t.Fatalf("no message within %s", Timeout)
		}
	}
}

func (c *conn) send(t *testing.T, typ int, data []byte) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(Timeout))
	if err := c.WriteMessage(typ, data); err != nil {
		t.Fatal(err)
	}
}

func (c client) negotiation(t *testing.T) {
	for _, path := range []string{peer.WSEchoPath, peer.WSBroadcastPath} {
		if got := c.dial(t, path).deflated; got != c.want {
			t.Errorf("%s: permessage-deflate accepted %v, want %v", path, got, c.want)
		}
	}
}

// messages are what the clients send: both types, empty unless the
// library drops those, and one large and compressible enough for every
// library to compress.
func (s *server) messages() []message {
	m := []message{
		{websocket.TextMessage, []byte("hello, gust")},
		{websocket.BinaryMessage, []byte{0, 1, 2, 0xff}},
		{websocket.TextMessage, nil},
		{websocket.BinaryMessage, nil},
		{websocket.BinaryMessage, bytes.Repeat([]byte("gust "), 2000)},
		{websocket.TextMessage, []byte("héllo ✓")},
	}
	if s.NoEmpty {
		m = slices.DeleteFunc(m, func(m message) bool { return len(m.data) == 0 })
	}
	return m
}

func (c client) echo(t *testing.T) {
	ws := c.dial(t, peer.WSEchoPath)
	want := c.messages()
	for range 3 {
		want = append(want, want...)
	}
	for i, m := range want { // all sent before any is read: order is the server's
		ws.send(t, m.typ, append(m.data, fmt.Sprint(i)...))
	}
	for i, m := range want {
		got := ws.next(t, "")
		if wantData := append(m.data, fmt.Sprint(i)...); got.typ != m.typ || !bytes.Equal(got.data, wantData) {
			t.Fatalf("echo %d: type %d %.40q, want type %d %.40q", i, got.typ, got.data, m.typ, wantData)
		}
	}
	for _, m := range c.messages() { // as they are: the empty ones too
		ws.send(t, m.typ, m.data)
		if got := ws.next(t, ""); got.typ != m.typ || !bytes.Equal(got.data, m.data) {
			t.Fatalf("echo: type %d %.40q, want type %d %.40q", got.typ, got.data, m.typ, m.data)
		}
	}
}

func (c client) broadcast(t *testing.T) {
	a, b := c.dial(t, peer.WSBroadcastPath), c.dial(t, peer.WSBroadcastPath)
	// A peer may join a connection to its set just after the 101 is
	// written: a sends "sync" until b hears one, so both are in.
	const sync = "sync"
	deadline := time.Now().Add(Timeout)
	for synced := false; !synced; {
		if time.Now().After(deadline) {
			t.Fatal("b heard nothing a sent")
		}
		a.send(t, websocket.TextMessage, []byte(sync))
		select {
		case m, ok := <-b.in:
			if !ok {
				t.Fatal("the server closed the connection")
			}
			synced = string(m.data) == sync
		case <-time.After(50 * time.Millisecond):
		}
	}
	for i, m := range c.messages() {
		from := []*conn{a, b}[i%2]
		from.send(t, m.typ, m.data)
		for name, to := range map[string]*conn{"a": a, "b": b} {
			if got := to.next(t, sync); got.typ != m.typ || !bytes.Equal(got.data, m.data) {
				t.Fatalf("message %d to %s: type %d %.40q, want type %d %.40q", i, name, got.typ, got.data, m.typ, m.data)
			}
		}
	}
}

// Modes are the ways every WebSocket peer is checked: ws without and with
// -ws-deflate, and wss with a self-signed certificate.
var Modes = []struct {
	Name    string
	TLS     peer.TLSFlags
	Deflate bool
}{
	{"ws", peer.TLSFlags{}, false},
	{"ws with -ws-deflate", peer.TLSFlags{}, true},
	{"wss with a self-signed certificate", peer.TLSFlags{SelfSigned: true}, false},
}

// RunNetHTTP checks a peer built on net/http in every mode: newHandler
// makes its handler for the flags and -ws-deflate, served by StartHTTP.
func RunNetHTTP(t *testing.T, newHandler func(f peer.Flags, deflate bool) http.Handler) {
	for _, m := range Modes {
		t.Run(m.Name, func(t *testing.T) {
			f := peer.Flags{TLS: m.TLS}
			Run(t, Target{Addr: StartHTTP(t, f, newHandler(f, m.Deflate)), TLS: m.TLS.On(), Deflate: m.Deflate})
		})
	}
}
