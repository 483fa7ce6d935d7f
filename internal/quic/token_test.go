package quic

import (
	"bytes"
	"net/netip"
	"testing"
	"time"
)

func TestTokenRoundTrip(t *testing.T) {
	p, err := NewTokenProtector(bytes.Repeat([]byte{3}, 16))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	client := netip.MustParseAddr("192.0.2.7")
	odcid := []byte{0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08}
	tok := p.AppendToken(nil, TokenRetry, client, odcid, now)

	got, err := p.Open(tok, TokenRetry, client, now.Add(time.Second), 10*time.Second)
	if err != nil || !bytes.Equal(got, odcid) {
		t.Fatalf("Open = %x, %v", got, err)
	}
	// The same address written as IPv4-mapped IPv6 is the same client.
	if _, err := p.Open(tok, TokenRetry, netip.MustParseAddr("::ffff:192.0.2.7"), now, time.Second); err != nil {
		t.Errorf("IPv4-mapped address refused: %v", err)
	}
	for name, open := range map[string]func() error{
		"another address": func() error {
			_, err := p.Open(tok, TokenRetry, netip.MustParseAddr("192.0.2.8"), now, time.Second)
			return err
		},
		"expired": func() error {
			_, err := p.Open(tok, TokenRetry, client, now.Add(11*time.Second), 10*time.Second)
			return err
		},
		"from the future": func() error {
			_, err := p.Open(tok, TokenRetry, client, now.Add(-time.Second), 10*time.Second)
			return err
		},
		"another kind": func() error { _, err := p.Open(tok, TokenNewToken, client, now, time.Second); return err },
		"damaged": func() error {
			bad := append([]byte(nil), tok...)
			bad[len(bad)-1] ^= 1
			_, err := p.Open(bad, TokenRetry, client, now, time.Second)
			return err
		},
		"truncated": func() error { _, err := p.Open(tok[:20], TokenRetry, client, now, time.Second); return err },
	} {
		if open() == nil {
			t.Errorf("%s: token accepted", name)
		}
	}

	nt := p.AppendToken(nil, TokenNewToken, client, nil, now)
	if got, err := p.Open(nt, TokenNewToken, client, now.Add(time.Hour), 24*time.Hour); err != nil || got != nil {
		t.Errorf("NEW_TOKEN token: %x, %v", got, err)
	}
	other, _ := NewTokenProtector(bytes.Repeat([]byte{4}, 16))
	if _, err := other.Open(nt, TokenNewToken, client, now, time.Hour); err == nil {
		t.Error("a token opened under another key")
	}
	if a := testing.AllocsPerRun(20, func() { p.Open(tok, TokenRetry, client, now, time.Second) }); a != 0 {
		t.Errorf("Open allocates %v times", a)
	}
}

func FuzzTokenOpen(f *testing.F) {
	p, _ := NewTokenProtector(bytes.Repeat([]byte{3}, 16))
	now := time.Unix(1_800_000_000, 0)
	client := netip.MustParseAddr("2001:db8::1")
	f.Add(p.AppendToken(nil, TokenRetry, client, []byte{1, 2, 3}, now))
	f.Fuzz(func(t *testing.T, tok []byte) {
		if odcid, err := p.Open(tok, TokenRetry, client, now, time.Minute); err == nil && len(odcid) > MaxConnIDLen {
			t.Fatalf("odcid of %d bytes", len(odcid))
		}
	})
}
