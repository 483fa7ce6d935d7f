package http3

import (
	"unsafe"

	"golang.org/x/net/http2/hpack"
)

// QPACK with a dynamic table of capacity 0 (RFC 9204): our SETTINGS
// advertise SETTINGS_QPACK_MAX_TABLE_CAPACITY 0, so a peer may reference
// only the static table, and we never insert into the peer's table. Field
// sections then need no encoder or decoder stream and no state: every
// section has Required Insert Count 0 and stands alone.

type staticKey struct{ name, value string }

var (
	staticByField = make(map[staticKey]uint8, len(staticTable))
	staticByName  = make(map[string]uint8, len(staticTable))
)

func init() {
	for i := len(staticTable) - 1; i >= 0; i-- { // the lowest index wins: shortest to encode
		e := staticTable[i]
		staticByField[staticKey{e.name, e.value}] = uint8(i)
		staticByName[e.name] = uint8(i)
	}
}

// AppendSectionPrefix appends the prefix every field section we encode
// starts with: Required Insert Count 0 and Base 0 (RFC 9204 section
// 4.5.1), as no section references the dynamic table.
func AppendSectionPrefix(b []byte) []byte { return append(b, 0, 0) }

// AppendField appends one field line to a field section: an indexed line
// when the static table holds name and value, a literal value with a
// static name reference when it holds the name, a literal name and value
// otherwise. Strings are Huffman-coded when that is shorter. Names must be
// lowercase (RFC 9114 section 4.2). It does not allocate beyond growing b.
func AppendField(b []byte, name, value string) []byte {
	if i, ok := staticByField[staticKey{name, value}]; ok {
		return appendPrefixInt(b, 0xc0, 6, uint64(i)) // 1 T=1 index
	}
	return appendLiteral(b, name, value, 0)
}

// AppendFieldNeverIndexed appends a field line as a literal with the 'N'
// bit set (RFC 9204 section 4.5.4): an intermediary must keep it literal
// on later hops, so a secret value (a cookie, a credential) is never put
// where a compression attack could probe for it.
func AppendFieldNeverIndexed(b []byte, name, value string) []byte {
	return appendLiteral(b, name, value, 0x20)
}

// AppendFieldBytes is AppendField for a name and value held as bytes; it
// reads them without copying or keeping them.
func AppendFieldBytes(b []byte, name, value []byte) []byte {
	return AppendField(b, bytesView(name), bytesView(value))
}

// bytesView reads b as a string without copying. The string must not
// outlive the call that made it, nor b change meanwhile.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// appendLiteral appends a literal field line; never is the 'N' bit in the
// position of a name-reference line (0x20), moved for a literal name.
func appendLiteral(b []byte, name, value string, never byte) []byte {
	if i, ok := staticByName[name]; ok {
		b = appendPrefixInt(b, 0x40|never|0x10, 4, uint64(i)) // 01 N T=1 index
	} else {
		b = appendString(b, 0x20|never>>1, 3, name) // 001 N H len
	}
	return appendString(b, 0, 7, value)
}

// appendPrefixInt appends v as an integer with an n-bit prefix (RFC 7541
// section 5.1), the bits above the prefix in the first byte set to flags.
func appendPrefixInt(b []byte, flags byte, n uint, v uint64) []byte {
	max := uint64(1)<<n - 1
	if v < max {
		return append(b, flags|byte(v))
	}
	b = append(b, flags|byte(max))
	v -= max
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendString appends a string literal whose length has an n-bit prefix;
// the Huffman flag is the bit just above the prefix.
func appendString(b []byte, flags byte, n uint, s string) []byte {
	h := byte(1) << n
	if hl := hpack.HuffmanEncodeLength(s); hl < uint64(len(s)) {
		b = appendPrefixInt(b, flags|h, n, hl)
		return hpack.AppendHuffmanString(b, s)
	}
	b = appendPrefixInt(b, flags, n, uint64(len(s)))
	return append(b, s...)
}
