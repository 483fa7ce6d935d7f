//go:build linux

package transport

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// directPair is a server TLS of ours after the handover and crypto/tls's
// client on the other end, with the client's own write key so that a test
// can send records crypto/tls would never send.
type directPair struct {
	s      *TLS
	client *tls.Conn
	raw    net.Conn   // under client: bytes written here bypass crypto/tls
	forge  *direction // the client's write key, at the next sequence number
}

func newDirectPair(t *testing.T) *directPair {
	t.Helper()
	fd, peer := newListener(t).pair(t)
	s := NewServerTLS(NewPlain(fd), serverConfig(t, tls.VersionTLS13))
	t.Cleanup(s.Release)
	hs := handshake(s, 5*time.Second)
	keys := &secretLog{}
	cc := clientConfig(t, tls.VersionTLS13)
	cc.KeyLogWriter = keys
	client := tls.Client(peer, cc)
	t.Cleanup(func() { client.Close() })
	if err := client.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-hs; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
	if s.d == nil || s.tc != nil {
		t.Fatal("the server kept crypto/tls's record layer after a TLS 1.3 handshake")
	}
	suite, ok := suiteFor(client.ConnectionState().CipherSuite)
	if !ok {
		t.Fatalf("suite %x is not AES-GCM", client.ConnectionState().CipherSuite)
	}
	forge, err := newDirection(suite, keys.client)
	if err != nil {
		t.Fatal(err)
	}
	return &directPair{s: s, client: client, raw: peer, forge: forge}
}

// send seals records of the client's and writes them under crypto/tls.
func (p *directPair) send(t *testing.T, recs ...[]byte) {
	t.Helper()
	var b []byte
	for i := 0; i+1 < len(recs); i += 2 {
		var err error
		if b, err = p.forge.seal(b, recs[i][0], recs[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.raw.Write(b); err != nil {
		t.Fatal(err)
	}
}

// readErr reads the server until an error other than ErrWouldBlock.
func readErr(t *testing.T, c *TLS) ([]byte, error) {
	t.Helper()
	var got []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if errors.Is(err, ErrWouldBlock) {
			waitFD(t, c.FD(), 1) // POLLIN
			continue
		}
		if err != nil {
			return got, err
		}
	}
}

// Content types for directPair.send.
var (
	recAppData   = []byte{typeApplicationData}
	recHandshake = []byte{typeHandshake}
	recAlert     = []byte{typeAlert}
)

func TestDirectRecordsServeCryptoTLSClient(t *testing.T) {
	p := newDirectPair(t)
	// Requests from crypto/tls itself, in several records, and responses
	// of every size up to several records, read by crypto/tls.
	for _, size := range []int{1, 100, maxPlaintext - 1, maxPlaintext, maxPlaintext + 1, 100 << 10} {
		req := bytes.Repeat([]byte("q"), size)
		go p.client.Write(req)
		got := readN(t, p.s, make([]byte, size), size)
		if !bytes.Equal(got, req) {
			t.Fatalf("%d-byte request read wrong", size)
		}
		resp := bytes.Repeat([]byte("r"), size)
		writeAll(t, p.s, resp)
		back := make([]byte, size)
		if _, err := io.ReadFull(p.client, back); err != nil || !bytes.Equal(back, resp) {
			t.Fatalf("%d-byte response: %v", size, err)
		}
	}
	if p.s.rc.in != nil || p.s.rc.out != nil || p.s.plain != nil {
		t.Fatal("an idle connection holds a record buffer")
	}
}

func TestDirectRecordsKeyUpdate(t *testing.T) {
	for _, requested := range []byte{0, 1} {
		p := newDirectPair(t)
		p.send(t, recHandshake, []byte{msgKeyUpdate, 0, 0, 1, requested})
		if err := p.forge.update(); err != nil {
			t.Fatal(err)
		}
		p.send(t, recAppData, []byte("after the update"))
		if got := readN(t, p.s, make([]byte, 64), 16); string(got) != "after the update" {
			t.Fatalf("read %q after a KeyUpdate", got)
		}
		// crypto/tls reads our KeyUpdate (when asked for one) and the
		// response sealed under our next key.
		writeAll(t, p.s, []byte("pong"))
		back := make([]byte, 4)
		p.client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(p.client, back); err != nil || string(back) != "pong" {
			t.Fatalf("update_requested=%d: crypto/tls read %q, %v", requested, back, err)
		}
	}
}

// TestDirectRecordsKeyUpdateCutAcrossRecords: RFC 8446 5.1 lets a
// handshake message span records; a KeyUpdate cut anywhere takes effect
// once its last byte, at the end of a record, has come.
func TestDirectRecordsKeyUpdateCutAcrossRecords(t *testing.T) {
	msg := []byte{msgKeyUpdate, 0, 0, 1, 1}
	for cut := 1; cut < len(msg); cut++ {
		p := newDirectPair(t)
		p.send(t, recHandshake, msg[:cut], recHandshake, msg[cut:])
		if err := p.forge.update(); err != nil {
			t.Fatal(err)
		}
		p.send(t, recAppData, []byte("after the update"))
		if got := readN(t, p.s, make([]byte, 64), 16); string(got) != "after the update" {
			t.Fatalf("cut after %d bytes: read %q after the KeyUpdate", cut, got)
		}
		writeAll(t, p.s, []byte("pong")) // under our next key: update_requested was 1
		back := make([]byte, 4)
		p.client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(p.client, back); err != nil || string(back) != "pong" {
			t.Fatalf("cut after %d bytes: crypto/tls read %q, %v", cut, back, err)
		}
	}
	// In three records, the middle one a single byte.
	p := newDirectPair(t)
	p.send(t, recHandshake, msg[:2], recHandshake, msg[2:3], recHandshake, msg[3:])
	if err := p.forge.update(); err != nil {
		t.Fatal(err)
	}
	p.send(t, recAppData, []byte("ok"))
	if got := readN(t, p.s, make([]byte, 64), 2); string(got) != "ok" {
		t.Fatalf("a KeyUpdate in three records: read %q", got)
	}
}

func TestDirectRecordsRefuseWhatTLS13Forbids(t *testing.T) {
	cases := []struct {
		name  string
		send  func(t *testing.T, p *directPair)
		alert byte // what the server sends and reports; 0 for a received alert
	}{
		{"a record whose tag does not match", func(t *testing.T, p *directPair) {
			b, _ := p.forge.seal(nil, typeApplicationData, []byte("GET / HTTP/1.1\r\n\r\n"))
			b[len(b)-1] ^= 1
			p.raw.Write(b)
		}, alertBadRecordMAC},
		{"a record longer than 2^14+256", func(t *testing.T, p *directPair) {
			p.raw.Write([]byte{0x17, 3, 3, 0x41, 0x01})
		}, alertRecordOverflow},
		{"change_cipher_spec after the handshake", func(t *testing.T, p *directPair) {
			p.raw.Write([]byte{0x14, 3, 3, 0, 1, 1})
		}, alertUnexpectedMessage},
		{"a plaintext alert after the handshake", func(t *testing.T, p *directPair) {
			p.raw.Write([]byte{0x15, 3, 3, 0, 2, 2, 40})
		}, alertUnexpectedMessage},
		{"a record shorter than its tag", func(t *testing.T, p *directPair) {
			p.raw.Write([]byte{0x17, 3, 3, 0, 3, 1, 2, 3})
		}, alertDecodeError},
		{"a record of padding only", func(t *testing.T, p *directPair) {
			p.send(t, []byte{0}, nil)
		}, alertUnexpectedMessage},
		{"17 empty records in a row", func(t *testing.T, p *directPair) {
			for range maxUseless + 1 {
				p.send(t, recAppData, nil)
			}
		}, alertUnexpectedMessage},
		{"a handshake message other than KeyUpdate", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{4, 0, 0, 1, 0})
		}, alertUnexpectedMessage},
		{"a KeyUpdate with a bad request value", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgKeyUpdate, 0, 0, 1, 2})
		}, alertIllegalParameter},
		{"a KeyUpdate of the wrong length", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgKeyUpdate, 0, 0, 2, 0, 0})
		}, alertDecodeError},
		{"a KeyUpdate not at the end of its record", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgKeyUpdate, 0, 0, 1, 0, msgKeyUpdate, 0, 0, 1, 0})
		}, alertUnexpectedMessage},
		{"application data between the records of a KeyUpdate", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgKeyUpdate, 0}, recAppData, []byte("x"), recHandshake, []byte{0, 1, 0})
		}, alertUnexpectedMessage},
		{"an alert between the records of a KeyUpdate", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgKeyUpdate, 0, 0, 1}, recAlert, []byte{1, 0})
		}, alertUnexpectedMessage},
		{"a cut KeyUpdate of the wrong length", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgKeyUpdate, 0}, recHandshake, []byte{0, 2, 0, 0})
		}, alertDecodeError},
		{"an empty handshake record", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, nil)
		}, alertUnexpectedMessage},
		{"a session ticket sent to a server", func(t *testing.T, p *directPair) {
			p.send(t, recHandshake, []byte{msgNewSessionTicket, 0, 0, 0})
		}, alertUnexpectedMessage},
		{"a plaintext longer than 2^14", func(t *testing.T, p *directPair) {
			p.send(t, recAppData, make([]byte, maxPlaintext+1))
		}, alertRecordOverflow},
		{"an alert of three bytes", func(t *testing.T, p *directPair) {
			p.send(t, recAlert, []byte{2, 40, 0})
		}, alertDecodeError},
		{"an unknown content type", func(t *testing.T, p *directPair) {
			p.send(t, []byte{99}, []byte("x"))
		}, alertUnexpectedMessage},
		{"the peer's fatal alert", func(t *testing.T, p *directPair) {
			p.send(t, recAlert, []byte{2, 40})
		}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newDirectPair(t)
			tc.send(t, p)
			_, err := readErr(t, p.s)
			var ae alertError
			if !errors.As(err, &ae) {
				t.Fatalf("Read: %v, want an alert", err)
			}
			if tc.alert == 0 {
				if !ae.received || ae.desc != 40 {
					t.Fatalf("Read: %v, want the peer's alert 40", err)
				}
				return
			}
			if ae.received || ae.desc != tc.alert {
				t.Fatalf("Read: %v, want alert %d sent", err, tc.alert)
			}
			// crypto/tls reads the fatal alert we sent.
			p.client.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, cerr := p.client.Read(make([]byte, 10))
			if cerr == nil || !strings.Contains(cerr.Error(), "remote error") {
				t.Fatalf("the client read %v, want our alert", cerr)
			}
			if _, err := p.s.Write([]byte("x")); err == nil {
				t.Fatal("Write after a fatal alert succeeded")
			}
		})
	}
}

func TestDirectRecordsAcceptWhatTLS13Allows(t *testing.T) {
	p := newDirectPair(t)
	// Padding, an empty record, and a record cut across two writes.
	b, _ := p.forge.seal(nil, typeApplicationData, nil)
	b = append(b, sealPadded(p.forge, typeApplicationData, []byte("padded"), 40)...)
	p.raw.Write(b[:len(b)-7])
	time.Sleep(10 * time.Millisecond) // a real gap: the two parts arrive apart
	p.raw.Write(b[len(b)-7:])
	if got := readN(t, p.s, make([]byte, 64), 6); string(got) != "padded" {
		t.Fatalf("read %q", got)
	}
	// user_canceled is a warning, as crypto/tls takes it.
	p.send(t, recAlert, []byte{1, alertUserCanceled}, recAppData, []byte("more"))
	if got := readN(t, p.s, make([]byte, 64), 4); string(got) != "more" {
		t.Fatalf("read %q after user_canceled", got)
	}
	// close_notify ends the stream; writing still works until ours.
	p.send(t, recAlert, []byte{1, alertCloseNotify})
	if got, err := readErr(t, p.s); err != io.EOF || len(got) != 0 {
		t.Fatalf("after close_notify: %q, %v", got, err)
	}
	writeAll(t, p.s, []byte("bye"))
	if err := p.s.CloseNotify(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(p.client)
	if err != nil || string(got) != "bye" {
		t.Fatalf("the client read %q, %v, want bye then close_notify", got, err)
	}
}

// sealPadded seals like d.seal with pad zero bytes after the content type
// (RFC 8446 5.4), which our writer never sends.
func sealPadded(d *direction, typ byte, data []byte, pad int) []byte {
	inner := append(append(append([]byte{}, data...), typ), make([]byte, pad)...)
	n := len(inner) + aeadOverhead
	hdr := []byte{0x17, 3, 3, byte(n >> 8), byte(n)}
	out := d.aead.Seal(append([]byte{}, hdr...), d.nextNonce(), inner, hdr)
	d.seq++
	return out
}

// TestDirectClientKeepsCryptoTLSAfterAKeyUpdate: a server that updates its
// key (asking for ours) before the client has stored a ticket leaves
// crypto/tls's keys past the first ones: the client must not hand over.
func TestDirectClientKeepsCryptoTLSAfterAKeyUpdate(t *testing.T) {
	fd, peer := newListener(t).pair(t)
	keys := &secretLog{}
	scfg := cryptoTLSServerConfig(t, tls.VersionTLS13)
	scfg.KeyLogWriter = keys
	server := tls.Server(peer, scfg)
	defer server.Close()
	ccfg := clientConfig(t, tls.VersionTLS13)
	ccfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	c := NewClientTLS(NewPlain(fd), ccfg)
	defer c.Release()
	hc := handshake(c, 5*time.Second)
	if err := server.Handshake(); err != nil {
		t.Fatal(err)
	}
	if err := <-hc; err != nil {
		t.Fatal(err)
	}
	suite, _ := suiteFor(server.ConnectionState().CipherSuite)
	forge, err := newDirection(suite, keys.server)
	if err != nil {
		t.Fatal(err)
	}
	forge.seq = 1 // after crypto/tls's one ticket, sealed in its first flight
	b, _ := forge.seal(nil, typeHandshake, []byte{msgKeyUpdate, 0, 0, 1, 1})
	forge.update()
	b, _ = forge.seal(b, typeApplicationData, []byte("hello"))
	peer.Write(b)
	if got := readN(t, c, make([]byte, 64), 5); string(got) != "hello" {
		t.Fatalf("read %q", got)
	}
	if c.d != nil {
		t.Fatal("the client handed over with keys crypto/tls had already updated")
	}
	// The client's next record is under its updated key, which crypto/tls's
	// server follows.
	writeAll(t, c, []byte("ping"))
	server.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, 4)
	if _, err := io.ReadFull(server, got); err != nil || string(got) != "ping" {
		t.Fatalf("the server read %q, %v", got, err)
	}
}

// TestDropConnectionStateKeepsABrief: after DropConnectionState a server
// connection no longer holds crypto/tls's state, ConnectionState still
// names the version, suite, protocol and resumption, and
// records go on both ways.
func TestDropConnectionStateKeepsABrief(t *testing.T) {
	p := newDirectPair(t)
	before := p.s.ConnectionState()
	if before.ServerName != "localhost" || before.NegotiatedProtocol != "http/1.1" {
		t.Fatalf("before: server name %q, protocol %q", before.ServerName, before.NegotiatedProtocol)
	}
	p.s.DropConnectionState()
	if p.s.d.cs != nil {
		t.Fatal("DropConnectionState kept crypto/tls's state")
	}
	after := p.s.ConnectionState()
	if after.Version != before.Version || after.CipherSuite != before.CipherSuite || after.NegotiatedProtocol != before.NegotiatedProtocol ||
		after.DidResume != before.DidResume || !after.HandshakeComplete {
		t.Errorf("after: %+v, want the brief of %+v", after, before)
	}
	go p.client.Write([]byte("ping"))
	if got := readN(t, p.s, make([]byte, 4), 4); string(got) != "ping" {
		t.Fatalf("read %q", got)
	}
	writeAll(t, p.s, []byte("pong"))
	back := make([]byte, 4)
	if _, err := io.ReadFull(p.client, back); err != nil || string(back) != "pong" {
		t.Fatalf("client read %q, %v", back, err)
	}
}

// TestRecordLayerFitsItsSizeClass: an idle connection's record layer is
// one allocation of the 288-byte class, its directions resting at 120
// bytes each (their AES-GCM states, when keyed, apart).
func TestRecordLayerFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(direction{}); n > 120 {
		t.Errorf("a direction is %d bytes, want at most 120", n)
	}
	if n := unsafe.Sizeof(direct13{}); n > 288 {
		t.Errorf("direct13 is %d bytes, want at most 288 (the allocator's class)", n)
	}
}
