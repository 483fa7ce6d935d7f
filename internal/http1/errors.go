package http1

import "errors"

// The errors returned by the parsers. They are predefined so that returning
// one never allocates; compare with == or errors.Is.
var (
	// ErrIncomplete means the input does not yet hold a complete head; it is
	// not a failure: read more bytes and parse again.
	ErrIncomplete = errors.New("http1: incomplete message")

	// ErrHeadTooLarge means no complete head was found within the maximum
	// head size the caller allowed.
	ErrHeadTooLarge = errors.New("http1: message head too large")

	// ErrBadStatusLine means the status line is not "HTTP/x.y SP 3DIGIT [SP reason]".
	ErrBadStatusLine = errors.New("http1: malformed status line")

	// ErrBadVersion means the HTTP major version is not 1.
	ErrBadVersion = errors.New("http1: unsupported HTTP version")

	// ErrBadHeader means a header line is malformed: no colon, a name that
	// is not a token, whitespace before the colon, obs-fold, or a control
	// character in the value.
	ErrBadHeader = errors.New("http1: malformed header line")

	// ErrBadContentLength means a Content-Length value is not a decimal
	// number, overflows, or disagrees with another Content-Length value.
	ErrBadContentLength = errors.New("http1: invalid Content-Length")

	// ErrBadChunk means the chunked framing of a body is malformed.
	ErrBadChunk = errors.New("http1: malformed chunked encoding")

	// ErrChunkExtTooLong means a chunk line's extensions exceed the limit
	// of the ChunkedDecoder.
	ErrChunkExtTooLong = errors.New("http1: chunk extension too long")

	// ErrTrailerTooLarge means the trailer section of a chunked body
	// exceeds the limit of the ChunkedDecoder.
	ErrTrailerTooLarge = errors.New("http1: chunked trailer section too large")

	// ErrBadRequestLine means the request line is not
	// "method SP request-target SP HTTP/1.x" with a token method and a
	// request-target of the form the method calls for.
	ErrBadRequestLine = errors.New("http1: malformed request line")

	// ErrURITooLong means the head limit was reached inside the
	// request-target: RFC 9112 section 3 asks for 414 then.
	ErrURITooLong = errors.New("http1: request-target too long")

	// ErrMethodTooLong means the head limit was reached inside the method,
	// which is then longer than any this server implements: RFC 9112
	// section 3 asks for 501.
	ErrMethodTooLong = errors.New("http1: method too long")

	// ErrTooManyHeaders means a request head has more header fields than
	// the caller allowed.
	ErrTooManyHeaders = errors.New("http1: too many header fields")

	// ErrBadHost means an HTTP/1.1 request has no Host field, or a request
	// has several Host fields or one whose value is not uri-host [":" port].
	ErrBadHost = errors.New("http1: missing, repeated or invalid Host")

	// ErrBadTransferEncoding means a request's Transfer-Encoding cannot
	// frame its body reliably: the final coding is not chunked, chunked is
	// applied twice, the list is malformed, the request is HTTP/1.0, or a
	// Content-Length field is present too.
	ErrBadTransferEncoding = errors.New("http1: invalid Transfer-Encoding")

	// ErrUnsupportedTE means a request's Transfer-Encoding is well formed and
	// ends in chunked, but also lists a coding this package does not decode.
	ErrUnsupportedTE = errors.New("http1: unsupported transfer coding")
)

// parseErrors lists every error IsMalformed recognises.
var parseErrors = [...]error{
	ErrHeadTooLarge,
	ErrBadStatusLine,
	ErrBadVersion,
	ErrBadHeader,
	ErrBadContentLength,
	ErrBadChunk,
	ErrChunkExtTooLong,
	ErrTrailerTooLarge,
	ErrBadRequestLine,
	ErrURITooLong,
	ErrMethodTooLong,
	ErrTooManyHeaders,
	ErrBadHost,
	ErrBadTransferEncoding,
	ErrUnsupportedTE,
}

// IsMalformed reports whether err (or an error it wraps) is one of the
// errors the parsers return for input they refuse, that is every parser
// error except ErrIncomplete. That includes the size limits ErrHeadTooLarge,
// ErrChunkExtTooLong and ErrTrailerTooLarge: in each case the peer sent
// something this package will not accept, and the connection cannot be
// reused.
func IsMalformed(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range parseErrors {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
