package datagram

import (
	"bytes"
	"testing"
)

func TestDestConnID(t *testing.T) {
	long := func(id []byte) []byte {
		p := []byte{0xc0, 0, 0, 0, 1, byte(len(id))}
		p = append(p, id...)
		return append(p, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8) // the source ID and more
	}
	id8 := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	tests := []struct {
		name     string
		p        []byte
		shortLen int
		want     []byte
		err      bool
	}{
		{name: "a long header gives its ID's length", p: long(id8), shortLen: 4, want: id8},
		{name: "a long header may carry an empty ID", p: long(nil), shortLen: 8, want: []byte{}},
		{name: "a short header's ID is the endpoint's length", p: append([]byte{0x40}, append(id8, 9, 9, 9)...), shortLen: 8, want: id8},
		{name: "an empty datagram has none", p: nil, err: true},
		{name: "a long header cut in its version has none", p: []byte{0xc0, 0, 0}, err: true},
		{name: "a long header shorter than its ID's length has none", p: long(id8)[:10], err: true},
		{name: "a short header shorter than the endpoint's length has none", p: []byte{0x40, 1, 2}, shortLen: 8, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DestConnID(tt.p, tt.shortLen)
			if tt.err {
				if err == nil {
					t.Fatalf("got %x, want an error", got)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("got %x, %v; want %x", got, err, tt.want)
			}
		})
	}
}

func TestRouter(t *testing.T) {
	r := NewRouter[int](4)
	r.Add([]byte{1, 2, 3, 4}, 7)
	r.Add([]byte{9, 9, 9, 9, 9, 9}, 3) // a long header may carry another length
	short := []byte{0x41, 1, 2, 3, 4, 0xff}
	if v, ok := r.Route(short); !ok || v != 7 {
		t.Fatalf("short header routed to %d, %v; want 7", v, ok)
	}
	long := []byte{0xc3, 0, 0, 0, 1, 6, 9, 9, 9, 9, 9, 9, 0}
	if v, ok := r.Route(long); !ok || v != 3 {
		t.Fatalf("long header routed to %d, %v; want 3", v, ok)
	}
	if _, ok := r.Route([]byte{0x41, 5, 5, 5, 5}); ok {
		t.Fatal("an unknown ID was routed")
	}
	r.Remove([]byte{1, 2, 3, 4})
	if _, ok := r.Route(short); ok || r.Len() != 1 {
		t.Fatalf("a removed ID still routes (ok %v, Len %d)", ok, r.Len())
	}
	if n := testing.AllocsPerRun(100, func() { r.Route(long) }); n != 0 {
		t.Fatalf("Route allocates %.1f times, want 0", n)
	}
}

func FuzzDestConnID(f *testing.F) {
	f.Add([]byte{0xc0, 0, 0, 0, 1, 4, 1, 2, 3, 4}, 8)
	f.Add([]byte{0x40, 1, 2, 3, 4, 5, 6, 7, 8}, 8)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0)
	f.Fuzz(func(t *testing.T, p []byte, shortLen int) {
		shortLen &= 0xff // what an endpoint may choose
		id, err := DestConnID(p, shortLen)
		if err != nil {
			return
		}
		// The ID is a view of p, inside it, after the first byte.
		if len(id) > 0 && (len(p) < len(id)+1 || !bytes.Contains(p[1:], id)) {
			t.Fatalf("ID %x is not inside %x", id, p)
		}
		if p[0]&0x80 == 0 && len(id) != shortLen {
			t.Fatalf("a short header's ID has %d bytes, want %d", len(id), shortLen)
		}
	})
}
