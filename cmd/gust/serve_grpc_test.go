package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// grpcFrame is one length-prefixed gRPC message, flags first.
func grpcFrame(flags byte, m []byte) []byte {
	b := []byte{flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(len(m)))
	return append(b, m...)
}

// echoMsg is a gust.echo.Msg: data (field 1) and count (field 2).
func echoMsg(data string, count int) []byte {
	b := append([]byte{1<<3 | 2, byte(len(data))}, data...)
	if count > 0 {
		b = append(b, 2<<3, byte(count))
	}
	return b
}

// TestServeGRPCEcho calls every method of gust serve --grpc, and sends it
// what it must refuse, over h2c, on both engines: the messages and the
// grpc-status trailer are checked byte for byte.
func TestServeGRPCEcho(t *testing.T) {
	hi := echoMsg("hi", 0)
	three := echoMsg("x", 3)
	calls := []struct {
		name, method string
		body         []byte
		ctype        string
		wantHTTP     int
		wantStatus   string
		wantBody     []byte
	}{
		{"unary", "Unary", grpcFrame(0, hi), "", 200, "0", grpcFrame(0, hi)},
		{"server stream of 3", "ServerStream", grpcFrame(0, three), "", 200, "0", bytes.Repeat(grpcFrame(0, three), 3)},
		{"client stream of 4", "ClientStream", bytes.Repeat(grpcFrame(0, hi), 4), "", 200, "0", grpcFrame(0, []byte{2 << 3, 4})},
		{"bidi of 2", "Bidi", append(grpcFrame(0, hi), grpcFrame(0, three)...), "", 200, "0", append(grpcFrame(0, hi), grpcFrame(0, three)...)},
		{"compressed without grpc-encoding", "Unary", grpcFrame(1, hi), "", 200, "13", nil},
		{"a message over 4 MiB", "Unary", []byte{0, 0, 0x50, 0, 0}, "", 200, "8", nil},
		{"a message cut short", "Unary", grpcFrame(0, hi)[:5], "", 200, "13", nil},
		{"no message", "Unary", nil, "", 200, "3", nil},
		{"an unknown method", "Nope", grpcFrame(0, hi), "", 200, "12", nil},
		{"not gRPC", "Unary", grpcFrame(0, hi), "application/json", 415, "", nil},
	}
	for _, engine := range []serveConfig{
		{Engine: "gust", Mode: "auto", API: "native"},
		{Engine: "gust", Mode: "pooled", API: "nethttp"},
		{Engine: "nethttp"},
	} {
		t.Run(engine.Engine+" "+engine.Mode, func(t *testing.T) {
			cfg := engine
			cfg.Addr, cfg.HTTP2, cfg.GRPC = "127.0.0.1:0", true, true
			lines, cancel, done := startServe(t, cfg)
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("runServe: %v", err)
				}
			}()
			base := "http://" + strings.Fields(strings.TrimPrefix(<-lines, "gust serve: listening on http://"))[0]
			tr := &http.Transport{Protocols: new(http.Protocols)}
			tr.Protocols.SetUnencryptedHTTP2(true)
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			for _, c := range calls {
				ctype := c.ctype
				if ctype == "" {
					ctype = "application/grpc"
				}
				req, _ := http.NewRequestWithContext(context.Background(), "POST", base+"/gust.echo.Echo/"+c.method, bytes.NewReader(c.body))
				req.Header.Set("Content-Type", ctype)
				req.Header.Set("TE", "trailers")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.wantHTTP {
					t.Errorf("%s: HTTP %d, want %d", c.name, resp.StatusCode, c.wantHTTP)
					continue
				}
				if got := resp.Trailer.Get("Grpc-Status"); got != c.wantStatus {
					t.Errorf("%s: grpc-status %q (%s), want %q", c.name, got, resp.Trailer.Get("Grpc-Message"), c.wantStatus)
				}
				if c.wantStatus == "0" && !bytes.Equal(body, c.wantBody) {
					t.Errorf("%s: body %x, want %x", c.name, body, c.wantBody)
				}
			}
		})
	}
}

func TestServeGRPCNeedsHTTP2(t *testing.T) {
	cfg := serveConfig{Engine: "gust", Mode: "auto", API: "native", GRPC: true}
	if err := cfg.check(); err == nil || !strings.Contains(err.Error(), "--http2") {
		t.Errorf("check: %v; want --http2 asked for", err)
	}
}
