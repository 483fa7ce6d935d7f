package quic

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
)

func TestClientRetry(t *testing.T) {
	p := newConnPair(t, nil)
	first, _ := p.client.AppendDatagram(nil, p.now)
	h, err := ParseLongHeader(first)
	if err != nil {
		t.Fatal(err)
	}
	odcid, clientSCID := bytes.Clone(h.DstConnID), bytes.Clone(h.SrcConnID)
	retrySCID := []byte{9, 9, 9, 9, 9, 9, 9, 9}

	bad := AppendRetry(nil, 0, clientSCID, retrySCID, []byte("token"), odcid)
	bad[len(bad)-1] ^= 1
	p.client.Receive(bad, p.now)
	if p.client.retried {
		t.Fatal("a Retry with a bad integrity tag was taken")
	}
	p.client.Receive(AppendRetry(nil, 0, clientSCID, retrySCID, []byte("token"), odcid), p.now)
	again, ok := p.client.AppendDatagram(nil, p.now)
	if !ok {
		t.Fatal("no Initial after the Retry")
	}
	h, err = ParseLongHeader(again)
	if err != nil || !bytes.Equal(h.DstConnID, retrySCID) || string(h.Token) != "token" || len(again) < 1200 {
		t.Fatalf("Initial after Retry: %+v (%d bytes), %v", h, len(again), err)
	}
	s, err := NewServerConn(&p.cfg, retrySCID, odcid, p.now)
	if err != nil {
		t.Fatal(err)
	}
	p.server = s
	s.Receive(again, p.now)
	p.handshake()
	exchangeStreams(t, p, 3, 2000)
}

func TestClientVersionNegotiation(t *testing.T) {
	p := newConnPair(t, nil)
	first, _ := p.client.AppendDatagram(nil, p.now)
	h, _ := ParseLongHeader(first)
	vn := AppendVersionNegotiation(nil, 0x2a, h.SrcConnID, h.DstConnID, 0x1a2a3a4a, 0xff00001d)
	withV1 := AppendVersionNegotiation(nil, 0x2a, h.SrcConnID, h.DstConnID, 0x1a2a3a4a, Version1)
	p.client.Receive(withV1, p.now)
	if p.client.Err() != nil {
		t.Fatalf("a list with version 1 failed the connection: %v", p.client.Err())
	}
	p.client.Receive(vn, p.now)
	if p.client.Err() != ErrVersionNegotiation || !p.client.Closed() {
		t.Fatalf("error %v, closed %v", p.client.Err(), p.client.Closed())
	}
	if _, ok := p.client.AppendDatagram(nil, p.now); ok {
		t.Fatal("a closed client still sends")
	}
}

func TestClientStatelessReset(t *testing.T) {
	p := newConnPair(t, nil)
	p.handshake()
	reset := AppendStatelessReset(nil, p.server.cids.local[0].token, 43)
	p.client.Receive(reset, p.now)
	if p.client.Err() != ErrStatelessReset {
		t.Fatalf("error %v", p.client.Err())
	}
	if _, ok := p.client.AppendDatagram(nil, p.now); ok {
		t.Fatal("a reset client still sends")
	}
}

func TestConnNewConnectionIDs(t *testing.T) {
	p := newConnPair(t, nil)
	p.handshake()
	exchangeStreams(t, p, 1, 10)
	if len(p.client.cids.remote) != maxIssuedConnIDs || len(p.server.cids.remote) != maxIssuedConnIDs {
		t.Fatalf("peer IDs: client has %d, server has %d", len(p.client.cids.remote), len(p.server.cids.remote))
	}
	// The server retires the ID the client sends to: the client moves on.
	before := bytes.Clone(p.client.cids.dcid())
	p.client.Receive(seal1RTT(p.server, frames(Frame{Type: FrameNewConnectionID, SequenceNumber: 9,
		RetirePriorTo: 1, ConnID: []byte{7, 7, 7, 7, 7, 7, 7, 7}, ResetToken: make([]byte, 16)}), p.now), p.now)
	if p.client.Err() != nil || bytes.Equal(p.client.cids.dcid(), before) {
		t.Fatalf("after Retire Prior To: %v, dcid %x", p.client.Err(), p.client.cids.dcid())
	}
	if len(p.client.cids.retireOwed) != 1 || p.client.cids.retireOwed[0] != 0 {
		t.Fatalf("RETIRE_CONNECTION_ID owed: %v", p.client.cids.retireOwed)
	}
	// The server takes the retirement, and its next 1-RTT packets reach
	// the client under the new ID.
	p.run("retire", func() bool { return len(p.server.cids.local) == maxIssuedConnIDs && p.server.cids.local[0].seq == 1 })
}

func TestClientRejectsCertificate(t *testing.T) {
	p := newConnPair(t, nil)
	c, err := NewClientConn(&Config{TLSConfig: &tls.Config{ServerName: "localhost", RootCAs: x509.NewCertPool(),
		NextProtos: []string{"gust-test"}}}, p.now)
	if err != nil {
		t.Fatal(err)
	}
	p.client = c
	t.Cleanup(func() { c.tls.Close() })
	p.run("close", func() bool { return p.server != nil && p.server.Err() != nil })
	var ce *CloseError
	if !errors.As(c.Err(), &ce) || ce.Remote || ce.Code != uint64(CryptoErrorBase+42) {
		t.Fatalf("client error %v, want CRYPTO_ERROR(42), bad_certificate", c.Err())
	}
	if !errors.As(p.server.Err(), &ce) || !ce.Remote || ce.Code != uint64(CryptoErrorBase+42) {
		t.Fatalf("server error %v", p.server.Err())
	}
}
