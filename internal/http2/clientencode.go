package http2

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/gust-http/gust/internal/ascii"
)

// A request's header block is encoded from its fields laid out as a key:
// the pseudo-fields, then the regular fields as HTTP/2 sends them, each
// name and value behind its length. The key is built in a reused buffer
// whichever form the Request has (Head or strings), so that it finds a
// cached block, and the encoder reads the fields back from it.

// encCache remembers the header block of one distinct request. HPACK
// indexes the dynamic table relative to its newest entry, so a block stays
// valid only while the encoder's table is unchanged: gen records the table
// generation the block was encoded in.
type encCache struct {
	key   []byte // the request's fields, as appendKey lays them out
	block []byte
	gen   uint64
	used  bool
}

// encCacheSize is how many distinct requests a connection remembers; a
// load generator sends one or a few.
const encCacheSize = 4

// internBudget bounds the bytes of the names and values a connection keeps
// as strings for HPACK's dynamic table (x/net's encoder keeps the strings
// it indexes). A field past the budget is sent as a literal never indexed,
// from a view of the caller's bytes, so that a stream of ever-new values
// (a replay's paths) costs no allocation.
const internBudget = 4096

// encodeRequest returns the header block of req. A request whose block is
// made of table references only (the steady state: its fields entered the
// table when first sent) is encoded once and reused while the table is
// unchanged; anything else is encoded afresh into the encoder's buffer.
func (c *ClientConn) encodeRequest(req *Request) []byte {
	c.key = appendKey(c.key[:0], req)
	for i := range c.encCache {
		e := &c.encCache[i]
		if e.used && e.gen == c.encGen && bytes.Equal(e.key, c.key) {
			return e.block
		}
	}
	c.enc.Begin()
	for k := c.key; len(k) > 0; {
		var name, value []byte
		name, k = nextKey(k)
		value, k = nextKey(k)
		c.encodeField(name, value)
	}
	block := c.enc.Block()
	if !onlyIndexed(block) {
		c.encGen++ // the table may have changed: every cached block is stale
		return block
	}
	e := &c.encCache[c.encNext]
	c.encNext = (c.encNext + 1) % encCacheSize
	e.key = append(e.key[:0], c.key...)
	e.block = append(e.block[:0], block...)
	e.gen, e.used = c.encGen, true
	return e.block
}

// encodeField encodes one field: indexed when its name and value are
// interned, as a literal never indexed otherwise.
func (c *ClientConn) encodeField(name, value []byte) {
	n, okName := c.intern(name)
	v, okValue := c.intern(value)
	if okName && okValue {
		c.enc.Field(n, v)
		return
	}
	c.enc.Literal(n, v)
}

// intern returns b as a string the connection keeps, or, past
// internBudget, a view of b and false.
func (c *ClientConn) intern(b []byte) (string, bool) {
	if s, ok := c.strs[string(b)]; ok {
		return s, true
	}
	if c.strBytes+len(b) > internBudget {
		return unsafe.String(unsafe.SliceData(b), len(b)), false
	}
	if c.strs == nil {
		c.strs = make(map[string]string)
	}
	s := string(b)
	c.strs[s] = s
	c.strBytes += len(b)
	return s, true
}

// appendKey appends req's fields to key: :method, :scheme, :authority and
// :path, then the header fields. From a Head, names are lowercased and
// Host and the connection-specific fields (RFC 9113 section 8.2.2) are
// left out; Header's fields are taken as they are.
func appendKey(key []byte, req *Request) []byte {
	h := req.Head
	if h == nil {
		key = appendPair(key, ":method", req.Method)
		key = appendPair(key, ":scheme", req.Scheme)
		key = appendPair(key, ":authority", req.Authority)
		key = appendPair(key, ":path", req.Path)
		if req.Protocol != "" {
			key = appendPair(key, ":protocol", req.Protocol)
		}
		for _, f := range req.Header {
			key = appendPair(key, f.Name, f.Value)
		}
		return key
	}
	scheme := req.Scheme
	if scheme == "" {
		scheme = unsafe.String(unsafe.SliceData(h.Scheme), len(h.Scheme))
	}
	key = appendPair(key, ":method", h.Method)
	key = appendPair(key, ":scheme", scheme)
	key = appendPair(key, ":authority", h.Host)
	key = appendPair(key, ":path", h.Target)
	for _, f := range h.Headers {
		if connectionSpecific(f.Name) {
			continue
		}
		key = binary.AppendUvarint(key, uint64(len(f.Name)))
		for _, b := range f.Name {
			key = append(key, ascii.Lower(b))
		}
		key = binary.AppendUvarint(key, uint64(len(f.Value)))
		key = append(key, f.Value...)
	}
	return key
}

func appendPair[T string | []byte](key []byte, name string, value T) []byte {
	key = binary.AppendUvarint(key, uint64(len(name)))
	key = append(key, name...)
	key = binary.AppendUvarint(key, uint64(len(value)))
	return append(key, value...)
}

// nextKey returns the first name or value of key and the rest.
func nextKey(key []byte) ([]byte, []byte) {
	n, w := binary.Uvarint(key)
	key = key[w:]
	return key[:n:n], key[n:]
}

// connectionSpecific reports a field a Head may carry that HTTP/2 does not
// send: Host (it is :authority) and the connection-specific fields.
func connectionSpecific(name []byte) bool {
	for _, s := range [...]string{"host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"} {
		if ascii.EqualLower(name, s) {
			return true
		}
	}
	return false
}

// isHead reports whether req is a HEAD request, whose response has no body.
func (req *Request) isHead() bool {
	if req.Head != nil {
		return string(req.Head.Method) == "HEAD"
	}
	return req.Method == "HEAD"
}

// onlyIndexed reports whether an HPACK block holds nothing but indexed
// field representations (RFC 7541 section 6.1), which leave the dynamic
// table as it is.
func onlyIndexed(block []byte) bool {
	for i := 0; i < len(block); {
		b := block[i]
		i++
		if b&0x80 == 0 {
			return false
		}
		if b&0x7f == 0x7f { // the index continues in varint bytes
			for i < len(block) && block[i]&0x80 != 0 {
				i++
			}
			i++
		}
	}
	return true
}
