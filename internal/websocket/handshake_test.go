package websocket

import (
	"strings"
	"testing"
)

func TestAcceptKey(t *testing.T) {
	// RFC 6455 section 1.3's example.
	if got := string(AcceptKey([]byte("x"), []byte("dGhlIHNhbXBsZSBub25jZQ=="))); got != "xs3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("got %q", got)
	}
	long := []byte(strings.Repeat("k", 200)) // past the stack buffer
	if a, b := AcceptKey(nil, long), AcceptKey(nil, long); string(a) != string(b) || len(a) != 28 {
		t.Fatal("long key")
	}
}

func TestValidKey(t *testing.T) {
	for key, want := range map[string]bool{
		"dGhlIHNhbXBsZSBub25jZQ==":  true,
		"AAAAAAAAAAAAAAAAAAAAAA==":  true,
		"dGhlIHNhbXBsZSBub25jZQ=":   false, // 23 bytes
		"dGhlIHNhbXBsZSBub25jZQ===": false,
		"dGhlIHNhbXBsZSBub25jZQ!!":  false,
		"dGhlIHNhbXBsZSBub25jZXk=":  false, // 17 bytes
		"":                          false,
	} {
		if got := ValidKey([]byte(key)); got != want {
			t.Errorf("ValidKey(%q) = %v", key, got)
		}
	}
	if k := NewKey(nil); !ValidKey(k) || string(k) == string(NewKey(nil)) {
		t.Errorf("NewKey: %q", k)
	}
}

func TestClientHandshake(t *testing.T) {
	key := []byte("dGhlIHNhbXBsZSBub25jZQ==")
	offer := AppendDeflateOffer(nil, DeflateParams{ClientNoContextTakeover: true})
	got, err := AppendClientHandshake(nil, "example.com:8080", "/chat?x=1", key, []string{"chat", "superchat"}, offer)
	if err != nil {
		t.Fatal(err)
	}
	want := "GET /chat?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Protocol: chat, superchat\r\n" +
		"Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; client_max_window_bits\r\n\r\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []struct{ host, path string }{{"a\r\nX: y", "/"}, {"h", "/a b"}, {"h", "noslash"}} {
		if _, err := AppendClientHandshake(nil, bad.host, bad.path, key, nil, nil); err == nil {
			t.Errorf("accepted host %q path %q", bad.host, bad.path)
		}
	}
	if _, err := AppendClientHandshake(nil, "h", "/", key, []string{"a b"}, nil); err == nil {
		t.Error("accepted a protocol with a space")
	}
}

func TestCheckServerResponse(t *testing.T) {
	key := []byte("dGhlIHNhbXBsZSBub25jZQ==")
	accept := []byte("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
	cases := []struct {
		name                         string
		status                       int
		upgrade, connection, accept_ string
		ok                           bool
	}{
		{"a correct answer", 101, "websocket", "Upgrade", string(accept), true},
		{"tokens in other cases and lists", 101, "WebSocket", "keep-alive, UPGRADE", " " + string(accept), true},
		{"not 101", 200, "websocket", "Upgrade", string(accept), false},
		{"no Upgrade", 101, "", "Upgrade", string(accept), false},
		{"no Connection upgrade", 101, "websocket", "close", string(accept), false},
		{"a wrong accept", 101, "websocket", "Upgrade", "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", false},
	}
	for _, tc := range cases {
		err := CheckServerResponse(tc.status, []byte(tc.upgrade), []byte(tc.connection), []byte(tc.accept_), key)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
