package quic

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"testing"
)

func TestStatelessResetToken(t *testing.T) {
	key := bytes.Repeat([]byte{0x42}, 32)
	k := NewStatelessResetKey(key)
	cid := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	mac := hmac.New(sha256.New, key)
	mac.Write(cid)
	want := mac.Sum(nil)[:16]
	if got := k.Token(cid); !bytes.Equal(got[:], want) {
		t.Errorf("Token = %x, want %x", got, want)
	}
	if a, b := k.Token(cid), k.Token([]byte{1, 2, 3, 4, 5, 6, 7, 9}); a == b {
		t.Error("two connection IDs share a token")
	}
	if a := testing.AllocsPerRun(20, func() { k.Token(cid) }); a != 0 {
		t.Errorf("Token allocates %v times", a)
	}
}

func TestStatelessResetSize(t *testing.T) {
	for _, tc := range []struct{ received, want int }{
		{21, 0}, {22, 21}, {43, 42}, {44, 43}, {1200, 64},
	} {
		if got := StatelessResetSize(tc.received); got != tc.want {
			t.Errorf("StatelessResetSize(%d) = %d, want %d", tc.received, got, tc.want)
		}
	}
}

func TestStatelessResetRoundTrip(t *testing.T) {
	k := NewStatelessResetKey(bytes.Repeat([]byte{7}, 32))
	token := k.Token([]byte{9, 9, 9, 9})
	pkt := AppendStatelessReset(nil, token, 40)
	if len(pkt) != 40 || IsLongHeader(pkt[0]) || pkt[0]&0x40 == 0 {
		t.Fatalf("reset %x: not a 40-byte short header look-alike", pkt)
	}
	if !IsStatelessReset(pkt, &token) {
		t.Error("IsStatelessReset missed its own reset")
	}
	other := k.Token([]byte{8})
	if IsStatelessReset(pkt, &other) || IsStatelessReset(pkt[len(pkt)-20:], &token) {
		t.Error("IsStatelessReset matched another token or a too short datagram")
	}
}
