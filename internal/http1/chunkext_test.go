package http1

import "testing"

// chunkExtCases hold chunk extensions at the edges of RFC 9112 section
// 7.1.1's grammar. A chunk line that two readers could split differently is
// a smuggling risk, so everything outside the grammar is refused; consumed
// is then the offset of the first byte outside it.
var chunkExtCases = []chunkCase{
	// Served: the grammar's own shapes.
	{name: "a bare name is served", in: "5;a\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "a name with a token value is served", in: "5;name=value\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "several extensions are served", in: "5;a=1;b;c=\"x\"\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "BWS around ; and = is served", in: "5 ; a = 1 ;\tb\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "a quoted value with ; and = inside is served", in: "5;a=\"x;y=z\"\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "a quoted value with escapes is served", in: "5;a=\"q\\\"uo\\\\te\\ d\"\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "an empty quoted value is served", in: "5;a=\"\"\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "obs-text in a quoted value is served", in: "5;a=\"\xe9t\xe9\"\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "an extension on the last chunk is served", in: "5\r\nhello\r\n0;end=1\r\n\r\n", data: "hello", done: true, consumed: -1},
	{name: "a quoted value followed by BWS and another extension is served", in: "5;a=\"x\" ;b\r\nhello\r\n0\r\n\r\n", data: "hello", done: true, consumed: -1},

	// Refused: an empty name, a name or value that is not a token.
	{name: "an empty extension name is refused", in: "5;\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 2},
	{name: "an empty name after BWS is refused", in: "5; \r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 3},
	{name: "two semicolons in a row are refused", in: "5;;a\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 2},
	{name: "a name that is not a token is refused", in: "5;bad[=x\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 5},
	{name: "a name starting with = is refused", in: "5;=x\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 2},
	{name: "an empty value is refused", in: "5;a=\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 4},
	{name: "an empty value before ; is refused", in: "5;a=;b\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 4},
	{name: "a value that is not a token is refused", in: "5;a=b@c\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 5},
	{name: "two values are refused", in: "5;a=b c\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 6},
	{name: "two names without a semicolon are refused", in: "5;a b\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 4},
	{name: "a second = is refused", in: "5;a=b=c\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 5},
	{name: "BWS before the end of the line is refused", in: "5;a \r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 4},
	{name: "BWS after a value before the end of the line is refused", in: "5;a=1 \r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 6},
	{name: "an unclosed quote swallowing the line end is refused", in: "5;a=\"x\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 6},
	{name: "text right after a closing quote is refused", in: "5;a=\"x\"y\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 7},
	{name: "a control byte escaped in a quoted value is refused", in: "5;a=\"\\\x01\"\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 6},
	{name: "DEL in a quoted value is refused", in: "5;a=\"\x7f\"\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 5},
	{name: "a quote inside a token value is refused", in: "5;a=b\"c\"\r\nhello\r\n0\r\n\r\n", err: ErrBadChunk, consumed: 5},
}

func TestChunkExtensionGrammar(t *testing.T) { checkChunkCases(t, chunkExtCases) }
