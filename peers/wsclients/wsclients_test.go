package wsclients

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	coder "github.com/coder/websocket"
	gorilla "github.com/gorilla/websocket"

	"github.com/gust-http/gust/peers/internal/peer"
	"github.com/gust-http/gust/server"
)

// timeout bounds every dial, message and close.
const timeout = 10 * time.Second

// The messages every client sends and wants back as they went, in order.
var messages = []struct {
	binary bool
	data   []byte
}{
	{false, []byte("héllo, wörld")},
	{true, bytes.Repeat(func() []byte {
		b := make([]byte, 256)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}(), 100)},
	{false, bytes.Repeat([]byte("x"), 300_000)},
	{true, []byte{}},
}

// echo is the server's WebSocket: it echoes every message and closes with
// 4000 on the text message "close".
func echo(deflate bool) *server.WebSocket {
	return &server.WebSocket{
		Deflate: deflate,
		OnMessage: func(ws *server.WSConn, typ server.WSMessageType, data []byte) {
			if typ == server.WSText && string(data) == "close" {
				ws.Close(4000, "asked to")
				return
			}
			ws.Send(typ, data)
		},
	}
}

// startGust serves ws on every path of a gust/server on a loopback port
// until the test ends, over TLS when tlsCfg is set, and returns its URL
// for /ws.
func startGust(t *testing.T, ws *server.WebSocket, tlsCfg *tls.Config) string {
	t.Helper()
	s := &server.Server{
		Handler: server.HandlerFunc(func(c *server.Ctx) { c.UpgradeWebSocket(ws) }),
		Config:  server.Config{TLS: tlsCfg},
	}
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-errc; err != server.ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	scheme := "ws"
	if tlsCfg != nil {
		scheme = "wss"
	}
	return scheme + "://" + s.Addr().String() + "/ws"
}

// selfSigned returns a server TLS config with a new self-signed
// certificate and a client one that trusts it.
func selfSigned(t *testing.T) (srv, client *tls.Config) {
	t.Helper()
	certPEM, keyPEM, err := peer.SelfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return &tls.Config{Certificates: []tls.Certificate{cert}},
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}}
}

// A client runs the whole exchange against url: it echoes messages,
// pings, asks the server to close, and returns the negotiated
// Sec-WebSocket-Extensions ("" for none) and the close code it received.
type client func(url string, tlsCfg *tls.Config, deflate bool) (ext string, code int, err error)

func TestRealGoClients(t *testing.T) {
	srvTLS, clientTLS := selfSigned(t)
	clients := []struct {
		name string
		run  client
	}{
		{"gorilla", gorillaClient},
		{"coder", coderClient},
	}
	for _, cl := range clients {
		for _, scheme := range []string{"ws", "wss"} {
			for _, srvDeflate := range []bool{false, true} {
				var sc, cc *tls.Config
				if scheme == "wss" {
					sc, cc = srvTLS, clientTLS
				}
				url := startGust(t, echo(srvDeflate), sc)
				for _, cliDeflate := range []bool{false, true} {
					name := fmt.Sprintf("%s over %s, server deflate %v, client deflate %v", cl.name, scheme, srvDeflate, cliDeflate)
					t.Run(name, func(t *testing.T) {
						ext, code, err := cl.run(url, cc, cliDeflate)
						if err != nil {
							t.Fatal(err)
						}
						want := ""
						if srvDeflate && cliDeflate {
							want = "permessage-deflate"
						}
						if got, _, _ := strings.Cut(ext, ";"); strings.TrimSpace(got) != want {
							t.Errorf("Sec-WebSocket-Extensions %q, want %q", ext, want)
						}
						if code != 4000 {
							t.Errorf("close code %d, want 4000", code)
						}
						t.Logf("ok extensions=%q close=%d", ext, code)
					})
				}
			}
		}
	}
}

func gorillaClient(url string, tlsCfg *tls.Config, deflate bool) (string, int, error) {
	d := gorilla.Dialer{HandshakeTimeout: timeout, TLSClientConfig: tlsCfg, EnableCompression: deflate}
	c, resp, err := d.Dial(url, nil)
	if err != nil {
		return "", 0, fmt.Errorf("dial %s: %w", url, err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(timeout))
	c.SetWriteDeadline(time.Now().Add(timeout))
	ext := resp.Header.Get("Sec-WebSocket-Extensions")

	for i, m := range messages {
		typ := gorilla.TextMessage
		if m.binary {
			typ = gorilla.BinaryMessage
		}
		if err := c.WriteMessage(typ, m.data); err != nil {
			return ext, 0, fmt.Errorf("message %d: %w", i, err)
		}
		gotTyp, got, err := c.ReadMessage()
		if err != nil {
			return ext, 0, fmt.Errorf("message %d: %w", i, err)
		}
		if gotTyp != typ || !bytes.Equal(got, m.data) {
			return ext, 0, fmt.Errorf("message %d: got type %d, %d bytes; want type %d, %d bytes", i, gotTyp, len(got), typ, len(m.data))
		}
	}

	// The pong is handled while reading the echo of a message sent after
	// the ping: the server answers in order.
	pong := make(chan string, 1)
	c.SetPongHandler(func(s string) error { pong <- s; return nil })
	if err := c.WriteControl(gorilla.PingMessage, []byte("are you there"), time.Now().Add(timeout)); err != nil {
		return ext, 0, fmt.Errorf("ping: %w", err)
	}
	if err := c.WriteMessage(gorilla.TextMessage, []byte("after the ping")); err != nil {
		return ext, 0, err
	}
	if _, _, err := c.ReadMessage(); err != nil {
		return ext, 0, fmt.Errorf("after the ping: %w", err)
	}
	select {
	case s := <-pong:
		if s != "are you there" {
			return ext, 0, fmt.Errorf("pong %q, want the ping's payload", s)
		}
	default:
		return ext, 0, errors.New("no pong before the next message's echo")
	}

	if err := c.WriteMessage(gorilla.TextMessage, []byte("close")); err != nil {
		return ext, 0, err
	}
	_, _, err = c.ReadMessage()
	var ce *gorilla.CloseError
	if !errors.As(err, &ce) {
		return ext, 0, fmt.Errorf("after asking to close: %v, want a close", err)
	}
	if ce.Text != "asked to" {
		return ext, ce.Code, fmt.Errorf("close reason %q, want %q", ce.Text, "asked to")
	}
	return ext, ce.Code, nil
}

func coderClient(url string, tlsCfg *tls.Config, deflate bool) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	opts := &coder.DialOptions{CompressionMode: coder.CompressionDisabled}
	if deflate {
		opts.CompressionMode = coder.CompressionNoContextTakeover
	}
	if tlsCfg != nil {
		tr := &http.Transport{TLSClientConfig: tlsCfg}
		defer tr.CloseIdleConnections()
		opts.HTTPClient = &http.Client{Transport: tr}
	}
	c, resp, err := coder.Dial(ctx, url, opts)
	if err != nil {
		return "", 0, fmt.Errorf("dial %s: %w", url, err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	ext := resp.Header.Get("Sec-WebSocket-Extensions")

	// coder/websocket handles pongs only while something reads: one
	// goroutine reads every message for the whole exchange.
	type read struct {
		typ  coder.MessageType
		data []byte
		err  error
	}
	reads := make(chan read, 1)
	go func() {
		for {
			typ, data, err := c.Read(ctx)
			reads <- read{typ, data, err}
			if err != nil {
				return
			}
		}
	}()

	for i, m := range messages {
		typ := coder.MessageText
		if m.binary {
			typ = coder.MessageBinary
		}
		if err := c.Write(ctx, typ, m.data); err != nil {
			return ext, 0, fmt.Errorf("message %d: %w", i, err)
		}
		r := <-reads
		if r.err != nil {
			return ext, 0, fmt.Errorf("message %d: %w", i, r.err)
		}
		if r.typ != typ || !bytes.Equal(r.data, m.data) {
			return ext, 0, fmt.Errorf("message %d: got %v, %d bytes; want %v, %d bytes", i, r.typ, len(r.data), typ, len(m.data))
		}
	}

	if err := c.Ping(ctx); err != nil {
		return ext, 0, fmt.Errorf("ping: %w", err)
	}

	if err := c.Write(ctx, coder.MessageText, []byte("close")); err != nil {
		return ext, 0, err
	}
	r := <-reads
	var ce coder.CloseError
	if !errors.As(r.err, &ce) {
		return ext, 0, fmt.Errorf("after asking to close: %v, want a close", r.err)
	}
	if ce.Reason != "asked to" {
		return ext, int(ce.Code), fmt.Errorf("close reason %q, want %q", ce.Reason, "asked to")
	}
	return ext, int(ce.Code), nil
}
