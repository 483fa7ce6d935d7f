package http2

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/http2/hpack"

	"github.com/gust-http/gust/internal/head"
)

// TestEncodeRequestCacheStaysInSync interleaves requests, some of which add
// table entries and evict others, and decodes every block with one x/net
// decoder following the connection: each must decode to its own request,
// cached or not.
func TestEncodeRequestCacheStaysInSync(t *testing.T) {
	reqs := []*Request{
		{Method: "GET", Scheme: "http", Authority: "a.example", Path: "/"},
		{Method: "GET", Scheme: "http", Authority: "a.example", Path: "/other", Header: []Field{{"x-k", "v"}}},
		{Method: "POST", Scheme: "https", Authority: "b.example", Path: "/p", Header: []Field{{"x-big", strings.Repeat("b", 1500)}}},
	}
	c := NewClientConn(ClientConfig{})
	var got []string
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) { got = append(got, f.Name+"="+f.Value) })
	want := func(r *Request) string {
		s := fmt.Sprintf(":method=%s :scheme=%s :authority=%s :path=%s", r.Method, r.Scheme, r.Authority, r.Path)
		for _, f := range r.Header {
			s += " " + f.Name + "=" + f.Value
		}
		return s
	}
	order := []int{0, 0, 0, 1, 0, 1, 2, 0, 2, 1, 2, 2, 0, 0, 1}
	// A fresh Header slice with equal fields must hit the same entry, and
	// a mutated field must not.
	for step, i := range order {
		if step == 9 {
			c.enc.SetPeerTableSize(1024) // as a peer's SETTINGS_HEADER_TABLE_SIZE would
			c.encGen++
			dec.SetMaxDynamicTableSize(1024)
		}
		got = got[:0]
		block := c.encodeRequest(reqs[i])
		if _, err := dec.Write(block); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if g := strings.Join(got, " "); g != want(reqs[i]) {
			t.Fatalf("step %d: decoded %q, want %q", step, g, want(reqs[i]))
		}
	}
	copyReq := *reqs[1]
	copyReq.Header = []Field{{"x-k", "changed"}}
	got = got[:0]
	if _, err := dec.Write(c.encodeRequest(&copyReq)); err != nil || !strings.HasSuffix(strings.Join(got, " "), "x-k=changed") {
		t.Fatalf("changed header: %q, %v", got, err)
	}
}

func TestOnlyIndexed(t *testing.T) {
	tests := []struct {
		name  string
		block []byte
		want  bool
	}{
		{"static references are indexed", []byte{0x82, 0x86, 0x84}, true},
		{"a long index in varint bytes is indexed", []byte{0xff, 0x80, 0x01, 0x82}, true},
		{"a literal with incremental indexing is not", []byte{0x82, 0x41, 0x01, 'a'}, false},
		{"a table size update is not", []byte{0x20, 0x82}, false},
		{"an empty block is", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := onlyIndexed(tt.block); got != tt.want {
				t.Fatalf("onlyIndexed(%x) = %v, want %v", tt.block, got, tt.want)
			}
		})
	}
}

// TestAHeadEncodesAsItsFields checks that a Request given as a head sends
// what the same request given as strings sends: Host as :authority, names
// lowercased, the connection-specific fields left out; and that fields
// past the interning budget go out as literals that decode the same.
func TestAHeadEncodesAsItsFields(t *testing.T) {
	h := &head.Request{Method: []byte("POST"), Target: []byte("/p?q"), Host: []byte("a.example"), Headers: []head.Field{
		{Name: []byte("Host"), Value: []byte("a.example")},
		{Name: []byte("User-Agent"), Value: []byte("gust")},
		{Name: []byte("Connection"), Value: []byte("close")},
		{Name: []byte("X-Big"), Value: []byte(strings.Repeat("b", internBudget))},
		{Name: []byte("Content-Length"), Value: []byte("3")},
	}}
	want := ":method=POST :scheme=https :authority=a.example :path=/p?q user-agent=gust x-big=" +
		strings.Repeat("b", internBudget) + " content-length=3"
	c := NewClientConn(ClientConfig{})
	var got []string
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) { got = append(got, f.Name+"="+f.Value) })
	for range 3 {
		got = got[:0]
		if _, err := dec.Write(c.encodeRequest(&Request{Head: h, Scheme: "https"})); err != nil {
			t.Fatal(err)
		}
		if g := strings.Join(got, " "); g != want {
			t.Fatalf("decoded %q, want %q", g, want)
		}
	}
}
