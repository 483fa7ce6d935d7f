package quic

import (
	"bytes"
	"crypto/tls"
	"testing"
)

// RFC 9001 appendix A.1: the Initial secrets and keys of DCID
// 0x8394c8f03e515708.
func TestInitialKeysRFC9001(t *testing.T) {
	dcid := unhex(t, "8394c8f03e515708")
	cs, ss, err := InitialSecrets(dcid)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got []byte, want string) {
		t.Helper()
		if !bytes.Equal(got, unhex(t, want)) {
			t.Errorf("%s = %x, want %s", name, got, want)
		}
	}
	check("client_initial_secret", cs, "c00cf151ca5be075ed0ebfb5c80323c42d6b7db67881289af4008f1f6c357aea")
	check("server_initial_secret", ss, "3c199828fd139efd216c155ad844cc81fb82fa8d7446fa7d78be803acdda951b")
	c, err := deriveKeyMaterial(tls.TLS_AES_128_GCM_SHA256, cs)
	if err != nil {
		t.Fatal(err)
	}
	check("client key", c.key, "1f369613dd76d5467730efcbe3b1a22d")
	check("client iv", c.iv, "fa044b2f42a3fd3b46fb255c")
	check("client hp", c.hp, "9f50449e04a0e810283a1e9933adedd2")
	s, err := deriveKeyMaterial(tls.TLS_AES_128_GCM_SHA256, ss)
	if err != nil {
		t.Fatal(err)
	}
	check("server key", s.key, "cf3a5331653c364c88f0f379b6067e37")
	check("server iv", s.iv, "0ac1493ca1905853b0bba03e")
	check("server hp", s.hp, "c206b8d9b9f0f37644430b490eeaa314")
}

// rfcInitialKeys returns the keys of RFC 9001 appendix A.
func rfcInitialKeys(t testing.TB) (client, server *Keys) {
	client, server, err := NewInitialKeys(unhex(t, "8394c8f03e515708"))
	if err != nil {
		t.Fatal(err)
	}
	return client, server
}

// RFC 9001 appendix A.2: the client Initial, protected byte for byte.
func TestClientInitialRFC9001(t *testing.T) {
	client, _ := rfcInitialKeys(t)
	hdr := unhex(t, clientInitialHeader)
	payload := make([]byte, 1162)
	copy(payload, unhex(t, rfcClientInitialCrypto))
	pkt := append(append(make([]byte, 0, 1200), hdr...), payload...)
	got, err := client.Protect(pkt, 18, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, rfcClientInitialProtected)
	if !bytes.Equal(got, want) {
		t.Fatalf("protected client Initial differs\n got %x\nwant %x", got, want)
	}

	// The server's side: parse, unprotect, and find the same payload.
	in := unhex(t, rfcClientInitialProtected)
	h, err := ParseLongHeader(in)
	if err != nil || h.PacketLen != 1200 {
		t.Fatalf("ParseLongHeader = %+v, %v", h, err)
	}
	pn, plain, err := client.Unprotect(in, h.PNOffset, -1)
	if err != nil {
		t.Fatal(err)
	}
	if pn != 2 || !bytes.Equal(plain, payload) || !bytes.Equal(in[:22], hdr) {
		t.Errorf("unprotected pn %d, header %x, payload equal %v", pn, in[:22], bytes.Equal(plain, payload))
	}
}

// RFC 9001 appendix A.3: the server Initial, protected byte for byte.
func TestServerInitialRFC9001(t *testing.T) {
	_, server := rfcInitialKeys(t)
	hdr := unhex(t, serverInitialHeader)
	payload := unhex(t, rfcServerInitialPayload)
	pkt := append(append(make([]byte, 0, 256), hdr...), payload...)
	got, err := server.Protect(pkt, 18, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, rfcServerInitialProtected)
	if !bytes.Equal(got, want) {
		t.Fatalf("protected server Initial differs\n got %x\nwant %x", got, want)
	}
	in := unhex(t, rfcServerInitialProtected)
	h, err := ParseLongHeader(in)
	if err != nil {
		t.Fatal(err)
	}
	pn, plain, err := server.Unprotect(in, h.PNOffset, 0)
	if err != nil || pn != 1 || !bytes.Equal(plain, payload) {
		t.Errorf("Unprotect = %d, %x, %v", pn, plain, err)
	}
}

// RFC 9001 appendix A.4: the Retry packet and its integrity tag.
func TestRetryRFC9001(t *testing.T) {
	odcid := unhex(t, "8394c8f03e515708")
	got := AppendRetry(nil, 0x0f, nil, unhex(t, "f067a5502a4262b5"), []byte("token"), odcid)
	want := unhex(t, retryPacket)
	if !bytes.Equal(got, want) {
		t.Fatalf("Retry\n got %x\nwant %x", got, want)
	}
	if !ValidRetry(want, odcid) {
		t.Error("ValidRetry refused the RFC's Retry")
	}
	want[len(want)-1] ^= 1
	if ValidRetry(want, odcid) {
		t.Error("ValidRetry accepted a damaged tag")
	}
}

// RFC 9001 appendix A.5, byte for byte: the key derivation for
// ChaCha20-Poly1305 (32-byte key and header protection key), the key
// update secret, the nonce, the header protection mask of the sample, and
// the whole protected packet, protected and unprotected.
func TestChaCha20ShortHeaderRFC9001(t *testing.T) {
	secret := unhex(t, "9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b")
	m, err := deriveKeyMaterial(tls.TLS_CHACHA20_POLY1305_SHA256, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  []byte
		want string
	}{
		{"key", m.key, "c6d98ff3441c3fe1b2182094f69caa2ed4b716b65488960a7a984979fb23e1c8"},
		{"iv", m.iv, "e0459b3474bdd0e44a41c144"},
		{"hp", m.hp, "25a282b9e82f06f21f488917a4fc8f1b73573685608597d0efcb076b0ab7a7a4"},
	} {
		if !bytes.Equal(c.got, unhex(t, c.want)) {
			t.Errorf("%s = %x, want %s", c.name, c.got, c.want)
		}
	}
	ku, err := NextSecret(tls.TLS_CHACHA20_POLY1305_SHA256, secret)
	if err != nil || !bytes.Equal(ku, unhex(t, "1223504755036d556342ee9361d253421a826c9ecdf3c7148684b36b714881f9")) {
		t.Errorf("ku = %x, %v", ku, err)
	}
	var k keyCiphers
	copy(k.iv[:], m.iv)
	k.setNonce(654360564)
	if want := unhex(t, "e0459b3474bdd0e46d417eb0"); !bytes.Equal(k.nonce[:], want) {
		t.Errorf("nonce = %x, want %x", k.nonce, want)
	}
	var mask [5]byte
	chachaMask(&mask, (*[32]byte)(m.hp), unhex(t, "5e5cd55c41f69080575d7999c25a5bfb"))
	if want := unhex(t, "aefefe7d03"); !bytes.Equal(mask[:], want) {
		t.Errorf("mask = %x, want %x", mask, want)
	}
	keys, err := NewKeys(tls.TLS_CHACHA20_POLY1305_SHA256, secret)
	if err != nil {
		t.Fatal(err)
	}
	const pn = 654360564
	pkt := make([]byte, 0, 64)
	pkt = append(pkt, unhex(t, "4200bff4")...) // short header, no connection ID, a 3-byte packet number
	pkt = append(pkt, 0x01)                    // PING
	pkt, err = keys.Protect(pkt, 1, pn)
	want := unhex(t, "4cfe4189655e5cd55c41f69080575d7999c25a5bfb")
	if err != nil || !bytes.Equal(pkt, want) {
		t.Fatalf("protected = %x, %v; want %x", pkt, err, want)
	}
	gotPN, payload, err := keys.Unprotect(pkt, 1, pn-1)
	if err != nil || gotPN != pn || !bytes.Equal(payload, []byte{0x01}) || !bytes.Equal(pkt[:4], unhex(t, "4200bff4")) {
		t.Fatalf("unprotected: pn %d, payload %x, header %x, %v", gotPN, payload, pkt[:4], err)
	}
}

func TestKeyUpdateKeepsHeaderKey(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, 48)
	k, err := NewKeys(tls.TLS_AES_256_GCM_SHA384, secret)
	if err != nil {
		t.Fatal(err)
	}
	next, err := k.Next()
	if err != nil {
		t.Fatal(err)
	}
	dcid := []byte{1, 2, 3, 4}
	pkt := AppendShortHeader(make([]byte, 0, 64), false, true, dcid, 9, 2)
	pkt = append(pkt, "hello, quic"...)
	pkt, err = next.Protect(pkt, 5, 9)
	if err != nil {
		t.Fatal(err)
	}
	// The old keys lift the header protection; only the new ones open.
	in := append([]byte(nil), pkt...)
	pn, hdrLen, err := k.UnprotectHeader(in, 5, 8)
	if err != nil || pn != 9 || !KeyPhase(in[0]) {
		t.Fatalf("UnprotectHeader = %d, %v, key phase %v", pn, err, KeyPhase(in[0]))
	}
	if _, err := k.Open(append([]byte(nil), in...), hdrLen, pn); err == nil {
		t.Error("the old packet key opened a packet of the next phase")
	}
	if p, err := next.Open(in, hdrLen, pn); err != nil || string(p) != "hello, quic" {
		t.Errorf("Open = %q, %v", p, err)
	}
}

func TestProtectRejects(t *testing.T) {
	client, _ := rfcInitialKeys(t)
	short := AppendShortHeader(make([]byte, 0, 64), false, false, nil, 1, 1)
	short = append(short, 1) // 2 bytes of pn and payload: too short to sample
	if _, err := client.Protect(short, 1, 1); err == nil {
		t.Error("Protect accepted a packet too short to sample")
	}
	full := append([]byte(nil), unhex(t, clientInitialHeader)...)
	full = append(full, make([]byte, 30)...)
	if _, err := client.Protect(full[:len(full):len(full)], 18, 2); err == nil {
		t.Error("Protect accepted a packet with no room for the tag")
	}
	if _, _, err := client.Unprotect(make([]byte, 10), 5, -1); err == nil {
		t.Error("Unprotect accepted a packet too short to sample")
	}
}

func BenchmarkProtect1200(b *testing.B) {
	client, _ := rfcInitialKeys(b)
	hdr := unhex(b, clientInitialHeader)
	buf := make([]byte, 0, 1200)
	b.ReportAllocs()
	b.SetBytes(1200)
	for b.Loop() {
		pkt := append(buf[:0], hdr...)
		pkt = pkt[:1184]
		if _, err := client.Protect(pkt, 18, 2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnprotect1200(b *testing.B) {
	client, _ := rfcInitialKeys(b)
	want := unhex(b, rfcClientInitialProtected)
	in := make([]byte, len(want))
	b.ReportAllocs()
	b.SetBytes(1200)
	for b.Loop() {
		copy(in, want)
		if _, _, err := client.Unprotect(in, 18, -1); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReservedBits(t *testing.T) {
	if ReservedBitsSet(0xc3) || !ReservedBitsSet(0xc7) || ReservedBitsSet(0x47) || !ReservedBitsSet(0x48) {
		t.Error("ReservedBitsSet misreads a first byte")
	}
}

// The per-packet paths allocate nothing: parsing a header and a frame,
// protecting and unprotecting.
func TestPerPacketZeroAllocs(t *testing.T) {
	client, _ := rfcInitialKeys(t)
	hdr := unhex(t, clientInitialHeader)
	buf := make([]byte, 0, 1200)
	protected := unhex(t, rfcClientInitialProtected)
	in := make([]byte, len(protected))
	stream := AppendStreamFrame(nil, 4, 1<<20, make([]byte, 100), false, true)
	allocs := testing.AllocsPerRun(50, func() {
		pkt := append(buf[:0], hdr...)[:1184]
		if _, err := client.Protect(pkt, 18, 2); err != nil {
			t.Fatal(err)
		}
		copy(in, protected)
		h, err := ParseLongHeader(in)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := client.Unprotect(in, h.PNOffset, -1); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ParseFrame(stream); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per packet", allocs)
	}
	// ChaCha20-Poly1305's header protection is computed per packet too.
	chacha, err := NewKeys(tls.TLS_CHACHA20_POLY1305_SHA256, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	short := make([]byte, 0, 64)
	if allocs := testing.AllocsPerRun(50, func() {
		pkt := append(short[:0], 0x42, 0, 0, 1, 1, 0, 0, 0)
		pkt, err := chacha.Protect(pkt, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := chacha.Unprotect(pkt, 1, 0); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per ChaCha20-Poly1305 packet", allocs)
	}
}

func FuzzUnprotect(f *testing.F) {
	f.Add(unhex(f, rfcServerInitialProtected), 18)
	f.Add(unhex(f, "4cfe4189655e5cd55c41f69080575d7999c25a5bfb"), 1)
	_, server := rfcInitialKeys(f)
	f.Fuzz(func(t *testing.T, pkt []byte, pnOffset int) {
		n := len(pkt)
		pn, payload, err := server.Unprotect(pkt, pnOffset, 0)
		if err == nil && (pn > MaxPacketNumber || len(payload)+Overhead > n) {
			t.Fatalf("opened pn %d with %d bytes of payload from %d", pn, len(payload), n)
		}
	})
}

func TestAEADLimits(t *testing.T) {
	if c, i, ok := AEADLimits(tls.TLS_AES_128_GCM_SHA256); !ok || c != 1<<23 || i != 1<<52 {
		t.Errorf("AES-128-GCM limits %d, %d, %v", c, i, ok)
	}
	if _, i, ok := AEADLimits(tls.TLS_CHACHA20_POLY1305_SHA256); !ok || i != 1<<36 {
		t.Errorf("ChaCha20-Poly1305 integrity limit %d, %v", i, ok)
	}
	if _, _, ok := AEADLimits(0x1304); ok {
		t.Error("AES-128-CCM has limits: crypto/tls does not offer it")
	}
}
