//go:build linux

package transport

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"
)

// TestQuietShedsIdleKeysAndRecordsGoOn: Quiet drops the AES-GCM state of
// a direction only after a whole period without records, records in both
// directions go on afterwards as if nothing happened (sequence numbers
// and a key update included), and a busy direction keeps its state.
func TestQuietShedsIdleKeysAndRecordsGoOn(t *testing.T) {
	p := newDirectPair(t)
	echo := func(msg string) {
		t.Helper()
		go p.client.Write([]byte(msg))
		if got := readN(t, p.s, make([]byte, len(msg)), len(msg)); string(got) != msg {
			t.Fatalf("server read %q, want %q", got, msg)
		}
		writeAll(t, p.s, []byte(msg))
		back := make([]byte, len(msg))
		p.client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(p.client, back); err != nil || !bytes.Equal(back, []byte(msg)) {
			t.Fatalf("client read %q, %v; want %q", back, err, msg)
		}
	}
	echo("before")
	if p.s.Quiet() {
		t.Fatal("Quiet shed keys used since the handshake: they had no quiet period")
	}
	if p.s.d.in.aead == nil || p.s.d.out.aead == nil {
		t.Fatal("the first Quiet dropped a key in use")
	}
	if !p.s.Quiet() || p.s.d.in.aead != nil || p.s.d.out.aead != nil {
		t.Fatal("a second Quiet with no record between kept the AES-GCM states")
	}
	for i := range 3 {
		echo(fmt.Sprintf("after quiet %d", i))
		p.s.Quiet()
		p.s.Quiet()
	}
	// Only the server's writes: its read side rests, its write side not.
	p.s.Quiet()
	writeAll(t, p.s, []byte("one way"))
	io.ReadFull(p.client, make([]byte, 7))
	if p.s.Quiet() {
		t.Fatal("Quiet reports both directions shed while one was just used")
	}
	if p.s.d.in.aead != nil || p.s.d.out.aead == nil {
		t.Fatal("Quiet dropped the used direction's state or kept the idle one's")
	}
	// A KeyUpdate from the client after its direction was shed.
	p.s.Quiet()
	p.forge.seq = p.s.d.in.seq // crypto/tls sent the records before
	p.send(t, recHandshake, []byte{msgKeyUpdate, 0, 0, 1, 1})
	if err := p.forge.update(); err != nil {
		t.Fatal(err)
	}
	p.send(t, recAppData, []byte("updated"))
	if got := readN(t, p.s, make([]byte, 64), 7); string(got) != "updated" {
		t.Fatalf("read %q after a shed key and a KeyUpdate", got)
	}
}

// TestQuietLeavesOtherConnectionsAlone: before the handover (or with
// crypto/tls's records) Quiet does nothing.
func TestQuietLeavesOtherConnectionsAlone(t *testing.T) {
	fd, _ := newListener(t).pair(t)
	s := NewServerTLS(NewPlain(fd), serverConfig(t, 0))
	t.Cleanup(s.Release)
	if s.Quiet() {
		t.Fatal("Quiet before the handshake reported keys shed")
	}
}
