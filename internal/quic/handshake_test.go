package quic

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"
)

// This file runs a real TLS 1.3 handshake through crypto/tls's QUICConn,
// carried in packets these pieces build: CRYPTO frames in Initial and
// Handshake packets protected with the Initial keys and with Keys made
// from the secrets QUICConn reports, then 1-RTT packets and a key update.

// levelPacket maps QUIC encryption levels to the packet types carrying them.
var levelPacket = map[tls.QUICEncryptionLevel]PacketType{
	tls.QUICEncryptionLevelInitial:     PacketInitial,
	tls.QUICEncryptionLevelHandshake:   PacketHandshake,
	tls.QUICEncryptionLevelApplication: Packet1RTT,
}

type hsEndpoint struct {
	name        string
	conn        *tls.QUICConn
	read, write [4]*Keys
	nextPN      [4]uint64
	largest     [4]int64
	cryptoOff   [4]uint64 // received
	sentOff     [4]uint64
	peerParams  TransportParameters
	done        bool
	isServer    bool
	connID      []byte
	// pending holds packets that arrived before their level's keys,
	// kept until TLS installs them.
	pending [][]byte
}

func newHSEndpoint(name string, conn *tls.QUICConn, isServer bool, connID []byte) *hsEndpoint {
	e := &hsEndpoint{name: name, conn: conn, isServer: isServer, connID: connID}
	for i := range e.largest {
		e.largest[i] = -1
	}
	return e
}

// selfSigned returns a certificate for "localhost" and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// seal puts frames in a packet of level's type to dcid, protected with
// the level's write keys; a 1-RTT packet carries keyPhase.
func (e *hsEndpoint) seal(t *testing.T, level tls.QUICEncryptionLevel, frames, dcid []byte, keyPhase bool) []byte {
	t.Helper()
	k := e.write[level]
	if k == nil {
		t.Fatalf("%s: no write keys at level %v", e.name, level)
	}
	pn := e.nextPN[level]
	e.nextPN[level]++
	for len(frames) < 4 {
		frames = append(frames, 0) // PADDING, so the header can be sampled
	}
	const pnLen = 2
	var pkt []byte
	var pnOffset int
	if typ := levelPacket[level]; typ == Packet1RTT {
		pkt = AppendShortHeader(make([]byte, 0, 64+len(frames)), false, keyPhase, dcid, pn, pnLen)
		pnOffset = 1 + len(dcid)
	} else {
		pkt = AppendLongHeader(make([]byte, 0, 64+len(frames)), typ, dcid, e.connID, nil,
			uint64(pnLen+len(frames)+Overhead), pn, pnLen)
		pnOffset = len(pkt) - pnLen
	}
	pkt = append(pkt, frames...)
	out, err := k.Protect(pkt, pnOffset, pn)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// packetLevel returns the encryption level of a packet and where its
// packet number starts.
func (e *hsEndpoint) packetLevel(t *testing.T, pkt []byte) (tls.QUICEncryptionLevel, int) {
	t.Helper()
	if !IsLongHeader(pkt[0]) {
		h, err := ParseShortHeader(pkt, len(e.connID))
		if err != nil {
			t.Fatal(err)
		}
		return tls.QUICEncryptionLevelApplication, h.PNOffset
	}
	h, err := ParseLongHeader(pkt)
	if err != nil {
		t.Fatal(err)
	}
	if h.Type == PacketHandshake {
		return tls.QUICEncryptionLevelHandshake, h.PNOffset
	}
	return tls.QUICEncryptionLevelInitial, h.PNOffset
}

// receive unprotects a datagram's packets and hands CRYPTO data to TLS; a
// packet whose keys are not there yet waits in pending.
func (e *hsEndpoint) receive(t *testing.T, dgram []byte) {
	t.Helper()
	for len(dgram) > 0 {
		pkt, rest, err := NextPacket(dgram)
		if err != nil {
			t.Fatal(err)
		}
		dgram = rest
		level, pnOffset := e.packetLevel(t, pkt)
		if e.read[level] == nil {
			e.pending = append(e.pending, pkt)
			continue
		}
		pn, payload, err := e.read[level].Unprotect(pkt, pnOffset, e.largest[level])
		if err != nil {
			t.Fatalf("%s: unprotect at level %v: %v", e.name, level, err)
		}
		e.largest[level] = max(e.largest[level], int64(pn))
		for len(payload) > 0 {
			f, n, err := ParseFrame(payload)
			if err != nil {
				t.Fatal(err)
			}
			if !f.Type.AllowedIn(levelPacket[level]) {
				t.Fatalf("frame %#x in a packet of level %v", f.Type, level)
			}
			payload = payload[n:]
			if f.Type != FrameCrypto {
				continue
			}
			if f.Offset != e.cryptoOff[level] {
				t.Fatalf("CRYPTO at %d, want %d", f.Offset, e.cryptoOff[level])
			}
			e.cryptoOff[level] += uint64(len(f.Data))
			if err := e.conn.HandleData(level, f.Data); err != nil {
				t.Fatalf("%s: HandleData: %v", e.name, err)
			}
		}
	}
}

// receivePending receives the pending packets whose keys have arrived
// and reports whether there were any.
func (e *hsEndpoint) receivePending(t *testing.T) bool {
	t.Helper()
	var ready, wait [][]byte
	for _, p := range e.pending {
		if level, _ := e.packetLevel(t, p); e.read[level] != nil {
			ready = append(ready, p)
		} else {
			wait = append(wait, p)
		}
	}
	e.pending = wait
	for _, p := range ready {
		e.receive(t, p)
	}
	return len(ready) > 0
}

// drain handles e's TLS events; the handshake data it writes goes to the
// peer as one datagram of coalesced packets, as a QUIC endpoint sends it.
func (e *hsEndpoint) drain(t *testing.T, peer *hsEndpoint, params []byte) {
	t.Helper()
	var dgram []byte
	for {
		ev := e.conn.NextEvent()
		switch ev.Kind {
		case tls.QUICNoEvent:
			if e.receivePending(t) {
				continue
			}
			if len(dgram) > 0 {
				peer.receive(t, dgram)
			}
			return
		case tls.QUICSetReadSecret, tls.QUICSetWriteSecret:
			k, err := NewKeys(ev.Suite, ev.Data)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == tls.QUICSetReadSecret {
				e.read[ev.Level] = k
			} else {
				e.write[ev.Level] = k
			}
		case tls.QUICWriteData:
			frame := AppendCryptoFrame(nil, e.sentOff[ev.Level], ev.Data)
			e.sentOff[ev.Level] += uint64(len(ev.Data))
			dgram = append(dgram, e.seal(t, ev.Level, frame, peer.connID, false)...)
		case tls.QUICTransportParameters:
			p, err := ParseTransportParameters(ev.Data, !e.isServer)
			if err != nil {
				t.Fatal(err)
			}
			e.peerParams = p
		case tls.QUICTransportParametersRequired:
			e.conn.SetTransportParameters(params)
		case tls.QUICHandshakeDone:
			e.done = true
		}
	}
}

func TestHandshakeOverQUICConn(t *testing.T) {
	cert, pool := selfSigned(t)
	clientCID, serverCID := []byte{0xc1, 0xc1, 0xc1, 0xc1}, []byte{0x5e, 0x5e, 0x5e, 0x5e, 0x5e}
	odcid := []byte{0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08}

	cp := DefaultTransportParameters()
	cp.InitialMaxData, cp.InitialSrcConnID = 1<<20, clientCID
	sp := DefaultTransportParameters()
	sp.InitialMaxStreamsBidi, sp.InitialSrcConnID, sp.OriginalDstConnID = 100, serverCID, odcid
	clientParams, serverParams := AppendTransportParameters(nil, &cp), AppendTransportParameters(nil, &sp)

	client := newHSEndpoint("client", tls.QUICClient(&tls.QUICConfig{TLSConfig: &tls.Config{
		MinVersion: tls.VersionTLS13, ServerName: "localhost", RootCAs: pool, NextProtos: []string{"h3"},
	}}), false, clientCID)
	server := newHSEndpoint("server", tls.QUICServer(&tls.QUICConfig{TLSConfig: &tls.Config{
		MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{cert}, NextProtos: []string{"h3"},
	}}), true, serverCID)
	ci, si, err := NewInitialKeys(odcid)
	if err != nil {
		t.Fatal(err)
	}
	client.write[tls.QUICEncryptionLevelInitial], client.read[tls.QUICEncryptionLevelInitial] = ci, si
	server.write[tls.QUICEncryptionLevelInitial], server.read[tls.QUICEncryptionLevelInitial] = si, ci
	client.conn.SetTransportParameters(clientParams)

	ctx := context.Background()
	if err := client.conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := server.conn.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer client.conn.Close()
	defer server.conn.Close()
	for i := 0; i < 10 && !(client.done && server.done); i++ {
		client.drain(t, server, clientParams)
		server.drain(t, client, serverParams)
	}
	if !client.done || !server.done {
		t.Fatalf("handshake not done: client %v, server %v", client.done, server.done)
	}
	if client.peerParams.InitialMaxStreamsBidi != 100 || string(client.peerParams.OriginalDstConnID) != string(odcid) ||
		server.peerParams.InitialMaxData != 1<<20 || string(server.peerParams.InitialSrcConnID) != string(clientCID) {
		t.Errorf("transport parameters: client saw %+v, server saw %+v", client.peerParams, server.peerParams)
	}

	// 1-RTT: a request on stream 0, then the same after a key update.
	app := tls.QUICEncryptionLevelApplication
	for phase := range 2 {
		req := AppendStreamFrame(nil, 0, uint64(5*phase), []byte("GET /"), phase == 1, true)
		pkt := client.seal(t, app, req, serverCID, phase == 1)
		h, err := ParseShortHeader(pkt, len(serverCID))
		if err != nil {
			t.Fatal(err)
		}
		keys := server.read[app]
		pn, hdrLen, err := keys.UnprotectHeader(pkt, h.PNOffset, server.largest[app])
		if err != nil {
			t.Fatal(err)
		}
		if KeyPhase(pkt[0]) != (phase == 1) {
			t.Fatalf("phase %d: key phase bit %v", phase, KeyPhase(pkt[0]))
		}
		if KeyPhase(pkt[0]) {
			if keys, err = keys.Next(); err != nil {
				t.Fatal(err)
			}
		}
		payload, err := keys.Open(pkt, hdrLen, pn)
		if err != nil {
			t.Fatalf("phase %d: %v", phase, err)
		}
		server.largest[app] = int64(pn)
		f, _, err := ParseFrame(payload)
		if err != nil || f.Type != FrameStream || string(f.Data) != "GET /" || f.Fin != (phase == 1) {
			t.Errorf("phase %d: frame %+v, %v", phase, f, err)
		}
		if phase == 0 {
			if client.write[app], err = client.write[app].Next(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
